// The canonical JSON of a call's input: how the loop guard tells two calls are the same call.
import { MAX_INPUT_DEPTH, TOO_DEEP_MARKER } from "../../platform/store/input-bounds.ts"

/** JSON with object keys sorted at every depth; values JSON cannot hold are written as JSON would. */
export function canonicalJson(value: unknown): string {
  return write(value, new Set(), 0) ?? "null"
}

/** Recursive, so bounded: past `MAX_INPUT_DEPTH` a value is written as a marker, never walked. */
function write(value: unknown, seen: Set<object>, depth: number): string | undefined {
  if (value === null) return "null"
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value)
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null"
    case "bigint":
      return JSON.stringify(value.toString())
    case "undefined":
    case "function":
    case "symbol":
      return undefined
  }
  if (depth > MAX_INPUT_DEPTH) return JSON.stringify(TOO_DEEP_MARKER)
  const object = value as object & { toJSON?: () => unknown }
  if (typeof object.toJSON === "function") return write(object.toJSON(), seen, depth)
  if (seen.has(object)) return JSON.stringify("[Circular]")
  seen.add(object)
  try {
    if (Array.isArray(object))
      return `[${object.map((item) => write(item, seen, depth + 1) ?? "null").join(",")}]`
    const entries: string[] = []
    for (const key of Object.keys(object).sort()) {
      const item = write((object as Record<string, unknown>)[key], seen, depth + 1)
      if (item !== undefined) entries.push(`${JSON.stringify(key)}:${item}`)
    }
    return `{${entries.join(",")}}`
  } finally {
    seen.delete(object)
  }
}
