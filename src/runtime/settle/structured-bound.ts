// Structured output is bounded like text (spec 003's settlement law): a value whose JSON is over the byte
// limit is kept whole in the output store and replaced by a preview built to still fit the tool's output
// schema where it can. Arrays keep their first items (never fewer than `minItems`), long strings keep
// their start (never shorter than `minLength`; a string with a `pattern`, `format`, `enum` or `const`
// is kept whole, since a cut one would not be what it claims), objects keep every key with their values
// shrunk to share the budget. What was cut, and where the whole is, is said beside the value (metadata,
// the text), never inside it, so the preview's shape is the schema's.

import type { OutputStore } from "../output/store.ts"

type Schema = Record<string, unknown>

/** One place the preview left something out: its path, how many items or characters it kept of how many. */
export interface StructuredCut {
  readonly path: string
  readonly kind: "array" | "string"
  readonly kept: number
  readonly total: number
}

/** `metadata.structuredOutput` of a call whose structured value was cut. */
export interface StructuredBound {
  readonly truncated: true
  /** The whole value, as indented JSON, in the output store. */
  readonly outputPath: string
  /** Bytes of the whole value's JSON, and of the preview's. */
  readonly originalSize: number
  readonly truncatedSize: number
  readonly cuts: readonly StructuredCut[]
}

export type Bounded =
  | { readonly truncated: false; readonly value: unknown }
  | {
      readonly truncated: true
      readonly value: unknown
      readonly bound: StructuredBound
      readonly json: string
    }

export interface BoundOptions {
  readonly maxBytes: number
  readonly store: Pick<OutputStore, "write">
  /** The JSON Schema the value is declared to fit (the tool's output schema), if any. */
  readonly schema?: Record<string, unknown> | undefined
}

/**
 * Bounds `value`: unchanged when its JSON fits `maxBytes`; otherwise the whole is written to the store
 * (writing fails: this rejects, and the call must fail rather than point at nothing) and the preview
 * returned with what was cut. `json` is the whole as written (indented), for a caller whose text is it.
 */
export async function boundStructured(value: unknown, options: BoundOptions): Promise<Bounded> {
  const compact = JSON.stringify(value)
  if (compact === undefined || byteLength(compact) <= options.maxBytes) return { truncated: false, value }
  const json = JSON.stringify(value, null, 2)
  const outputPath = await options.store.write(json)
  const root = options.schema ?? {}
  let preview: unknown = value
  let cuts: StructuredCut[] = []
  // Punctuation and the cut values' estimates can overshoot: tighten until it fits (or stops shrinking).
  for (let budget = options.maxBytes, round = 0; round < 6; round++, budget = Math.floor(budget * 0.7)) {
    cuts = []
    preview = shrink(value, root, budget, [], { root, cuts })
    if (byteLength(JSON.stringify(preview)) <= options.maxBytes) break
  }
  const bound: StructuredBound = {
    truncated: true,
    outputPath,
    originalSize: byteLength(compact),
    truncatedSize: byteLength(JSON.stringify(preview)),
    cuts,
  }
  return { truncated: true, value: preview, bound, json }
}

/** For people and models: what the preview left out and where the whole is (no trailing newline). */
export function describeBound(bound: StructuredBound): string {
  const shown = bound.cuts.slice(0, 10).map((cut) => {
    const where = cut.path || "the value"
    return cut.kind === "array"
      ? `${where}: first ${cut.kept} of ${cut.total} items`
      : `${where}: first ${cut.kept} of ${cut.total} characters`
  })
  const more = bound.cuts.length > 10 ? `; and ${bound.cuts.length - 10} more cuts` : ""
  return `The structured result (${bound.originalSize} bytes) was cut to ${bound.truncatedSize} bytes to fit: ${shown.join("; ")}${more}. The whole is saved at ${bound.outputPath}; read it (with offset and limit) or search it rather than asking for it all again.`
}

interface Walk {
  readonly root: Schema
  readonly cuts: StructuredCut[]
}

function shrink(
  value: unknown,
  schema: unknown,
  budget: number,
  path: readonly (string | number)[],
  walk: Walk,
) {
  const size = byteLength(JSON.stringify(value) ?? "")
  if (size <= budget) return value
  const node = branchFor(resolve(schema, walk.root), value, walk.root)
  if (typeof value === "string") return cutString(value, node, budget, path, walk)
  if (Array.isArray(value)) return cutArray(value, node, budget, path, walk)
  if (typeof value === "object" && value !== null) return cutObject(value as Schema, node, budget, path, walk)
  return value
}

function cutString(
  text: string,
  node: Schema,
  budget: number,
  path: readonly (string | number)[],
  walk: Walk,
) {
  if (["pattern", "format", "enum", "const", "contentEncoding"].some((key) => key in node)) return text
  const min = typeof node.minLength === "number" ? node.minLength : 0
  // JSON escapes can make a character several bytes: keep characters while their JSON fits.
  let keep = Math.max(min, Math.min(text.length, budget - 2))
  while (keep > min && byteLength(JSON.stringify(text.slice(0, keep))) > budget) {
    keep = Math.max(min, Math.floor(keep * 0.8))
  }
  // Never split a surrogate pair.
  if (keep > 0 && keep < text.length && /[\uD800-\uDBFF]/.test(text[keep - 1]!)) keep--
  walk.cuts.push({ path: path.join("."), kind: "string", kept: keep, total: text.length })
  return text.slice(0, keep)
}

function cutArray(
  items: unknown[],
  node: Schema,
  budget: number,
  path: readonly (string | number)[],
  walk: Walk,
) {
  const min = typeof node.minItems === "number" ? node.minItems : 0
  const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : []
  const out: unknown[] = []
  let used = 2
  for (let index = 0; index < items.length; index++) {
    const itemSchema = index < prefix.length ? prefix[index] : node.items
    const left = budget - used - 1
    // Past the minimum, an item that does not fit whole ends the preview (the first may be shrunk).
    const whole = byteLength(JSON.stringify(items[index]) ?? "null")
    if (index >= min && whole > left && (out.length > 0 || left < 16)) break
    const share = index < min ? Math.max(16, Math.floor((budget - used) / (min - index))) : left
    const item = shrink(items[index], itemSchema, share, [...path, index], walk)
    out.push(item)
    used += byteLength(JSON.stringify(item) ?? "null") + 1
  }
  if (out.length < items.length)
    walk.cuts.push({ path: path.join("."), kind: "array", kept: out.length, total: items.length })
  return out
}

function cutObject(
  object: Schema,
  node: Schema,
  budget: number,
  path: readonly (string | number)[],
  walk: Walk,
) {
  const properties = isRecord(node.properties) ? node.properties : {}
  const entries = Object.entries(object).filter(([, item]) => item !== undefined)
  const sizes = entries.map(
    ([key, item]) => byteLength(JSON.stringify(key)) + byteLength(JSON.stringify(item) ?? "null") + 2,
  )
  // Small values stay whole; the large ones share what is left evenly.
  const order = entries.map((_, index) => index).sort((a, b) => sizes[a]! - sizes[b]!)
  let left = budget - 2
  const out: Record<string, unknown> = {}
  const shrunk = new Map<number, unknown>()
  order.forEach((index, rank) => {
    const fair = Math.floor(left / (order.length - rank))
    const [key, item] = entries[index]!
    if (sizes[index]! <= fair) {
      shrunk.set(index, item)
      left -= sizes[index]!
      return
    }
    const keyBytes = byteLength(JSON.stringify(key)) + 2
    const itemSchema = Object.hasOwn(properties, key) ? properties[key] : node.additionalProperties
    const value = shrink(item, itemSchema, Math.max(16, fair - keyBytes), [...path, key], walk)
    shrunk.set(index, value)
    left -= keyBytes + byteLength(JSON.stringify(value) ?? "null")
  })
  // Keys in their original order.
  entries.forEach(([key], index) => {
    out[key] = shrunk.get(index)
  })
  return out
}

/** Follows local `$ref`s; gives `{}` (no constraints) for anything it cannot follow. */
function resolve(schema: unknown, root: Schema): Schema {
  let node = schema
  for (let hops = 0; isRecord(node) && typeof node.$ref === "string" && hops < 32; hops++) {
    const ref = node.$ref
    if (ref === "#") node = root
    else if (ref.startsWith("#/")) {
      let at: unknown = root
      for (const raw of ref.slice(2).split("/")) {
        const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
        at = isRecord(at) ? at[key] : undefined
      }
      node = at
    } else return {}
  }
  return isRecord(node) && typeof node.$ref !== "string" ? node : {}
}

/** Of `anyOf`/`oneOf`, the first branch for the value's JSON type (or the node itself). */
function branchFor(node: Schema, value: unknown, root: Schema): Schema {
  const branches = [...asArray(node.anyOf), ...asArray(node.oneOf)].map((branch) => resolve(branch, root))
  if (branches.length === 0) return node
  const type = Array.isArray(value) ? "array" : value === null ? "null" : typeof value
  const fits = branches.find((branch) => {
    const declared = Array.isArray(branch.type) ? branch.type : [branch.type]
    return declared.includes(type) || (type === "number" && declared.includes("integer"))
  })
  return fits ?? node
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8")
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
