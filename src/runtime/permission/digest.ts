import { createSha256 } from "../../platform/util/sha256.ts"

/**
 * The digest an approval is bound to: sha256 (hex) of the tool name and the canonical JSON of the call's
 * input. Two calls with the same tool and the same input (whatever the key order) share a digest; any
 * other input gives another one.
 */
export function callDigest(tool: string, input: unknown): string {
  return createSha256()
    .update(tool)
    .update("\0")
    .update(canonicalJSON(input) ?? "null")
    .digest("hex")
}

/**
 * JSON with object keys sorted at every level (JSON.stringify's rules otherwise: `toJSON` is honoured,
 * `undefined` and functions are left out of objects and become `null` in arrays). Undefined for a value
 * JSON cannot hold.
 */
export function canonicalJSON(value: unknown): string | undefined {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON: () => unknown }).toJSON()
  }
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined
  if (typeof value === "bigint") return JSON.stringify(value.toString())
  if (value === null || typeof value !== "object") return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJSON(item) ?? "null").join(",")}]`
  const parts: string[] = []
  for (const key of Object.keys(value).sort()) {
    const text = canonicalJSON((value as Record<string, unknown>)[key])
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`)
  }
  return `{${parts.join(",")}}`
}
