// Exact strings for numbers and booleans, before decoding. Models often send `"offset": "2"` for a number
// field (the spec's read coerces its offset and limit); every tool gets the same help here, driven by the
// JSON Schema the model was shown, so Zod tools and MCP servers' schemas are treated alike. Only a string
// that is exactly a number ("2", "-3", "1.5": the way JSON writes that number) or exactly "true"/"false" is
// changed, and only where the schema admits no string: "2abc", " 2", "0x10", "1e400" stay strings, and the
// decode that follows names them as it always did.

/** One value changed: where (dotted path, array indices as numbers), what was sent, what is decoded. */
export interface Coercion {
  readonly path: string
  readonly from: string
  readonly to: number | boolean
}

export interface Coerced {
  /** The input with the exact strings replaced; the input itself when nothing was. */
  readonly value: unknown
  readonly coerced: readonly Coercion[]
}

type Schema = Record<string, unknown> | boolean

/** `.1`, `01`, `1e3`, `-0`, `1.50` are not how JSON writes a number, so they are not exactly one. */
const DECIMAL = /^-?\d+(\.\d+)?$/

/**
 * Replaces, in a copy of `value`, each string that is exactly a number or a boolean where `schema` (the
 * tool's input JSON Schema) wants that type and no string. Never throws: a schema it cannot follow
 * changes nothing there.
 */
export function coerceInput(schema: unknown, value: unknown): Coerced {
  const out: Coercion[] = []
  const root = isSchema(schema) ? schema : true
  const walked = walk(root, value, [], { root, out, hops: 0 })
  return { value: out.length ? walked : value, coerced: out }
}

/**
 * Whether `value` holds a string that `coerceInput` could change (one that is exactly a number, `true` or
 * `false`): the tool's JSON Schema is needed only then, and writing it costs more than most calls.
 */
export function hasCoercible(value: unknown, depth = 0): boolean {
  if (typeof value === "string")
    return value === "true" || value === "false" || exactNumber(value) !== undefined
  if (value === null || typeof value !== "object") return false
  if (depth > 64) return true // Too deep to look through cheaply: let coerceInput walk it.
  for (const item of Array.isArray(value) ? value : Object.values(value))
    if (hasCoercible(item, depth + 1)) return true
  return false
}

/** The number a string is exactly, or undefined (`String(n) === text` rules out lost precision). */
export function exactNumber(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined
  const n = Number(text)
  return Number.isFinite(n) && String(n) === text ? n : undefined
}

interface Walk {
  readonly root: Schema
  readonly out: Coercion[]
  /** `$ref`s followed without descending into the value; bounded so a self-reference ends. */
  hops: number
}

function walk(schema: Schema, value: unknown, path: readonly (string | number)[], state: Walk): unknown {
  const node = resolve(schema, state)
  if (node === undefined || typeof node === "boolean") return value
  if (typeof value === "string") return scalar(node, value, path, state)
  if (Array.isArray(value)) {
    const shape = only(node, "array", state)
    if (!shape) return value
    const prefix = Array.isArray(shape.prefixItems) ? (shape.prefixItems as unknown[]) : []
    let changed = false
    const items = value.map((item, index) => {
      const itemSchema = index < prefix.length ? prefix[index] : shape.items
      if (!isSchema(itemSchema)) return item
      const next = walk(itemSchema, item, [...path, index], state)
      changed ||= next !== item
      return next
    })
    return changed ? items : value
  }
  if (isRecord(value)) {
    const shape = only(node, "object", state)
    if (!shape) return value
    const properties = isRecord(shape.properties) ? shape.properties : {}
    let changed = false
    const entries = Object.entries(value).map(([key, item]) => {
      const itemSchema = Object.hasOwn(properties, key) ? properties[key] : shape.additionalProperties
      if (!isSchema(itemSchema)) return [key, item] as const
      const next = walk(itemSchema, item, [...path, key], state)
      changed ||= next !== item
      return [key, next] as const
    })
    return changed ? Object.fromEntries(entries) : value
  }
  return value
}

/** A string where the schema wants a number or a boolean and admits no string: the exact value, if any. */
function scalar(
  node: Record<string, unknown>,
  text: string,
  path: readonly (string | number)[],
  state: Walk,
) {
  const types = admitted(node, state, 0)
  if (types === "any" || types.has("string")) return text
  let to: number | boolean | undefined
  if (types.has("number") || types.has("integer")) {
    const n = exactNumber(text)
    if (n !== undefined && (types.has("number") || Number.isInteger(n))) to = n
  }
  if (to === undefined && types.has("boolean") && (text === "true" || text === "false")) to = text === "true"
  if (to === undefined) return text
  state.out.push({ path: path.join("."), from: text, to })
  return to
}

/** The JSON types a schema node admits, or "any" when it does not say (or says too much to follow). */
function admitted(node: Schema | undefined, state: Walk, depth: number): Set<string> | "any" {
  const resolved = resolve(node, state)
  if (resolved === undefined || typeof resolved === "boolean" || depth > 16) return "any"
  let types: Set<string> | "any" = "any"
  if (typeof resolved.type === "string") types = new Set([resolved.type])
  else if (Array.isArray(resolved.type)) types = new Set(resolved.type.map(String))
  else if (Array.isArray(resolved.enum)) types = new Set(resolved.enum.map(jsonType))
  else if ("const" in resolved) types = new Set([jsonType(resolved.const)])
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = resolved[key]
    if (!Array.isArray(branches)) continue
    const union = new Set<string>()
    for (const branch of branches) {
      const inner = admitted(branch as Schema, state, depth + 1)
      if (inner === "any") return "any"
      for (const type of inner) union.add(type)
    }
    types = types === "any" ? union : intersect(types, union)
  }
  if (Array.isArray(resolved.allOf)) {
    for (const member of resolved.allOf) {
      const inner = admitted(member as Schema, state, depth + 1)
      if (inner !== "any") types = types === "any" ? inner : intersect(types, inner)
    }
  }
  return types
}

/** The one branch (or the node itself) that describes a value of `kind`; undefined when unclear. */
function only(node: Record<string, unknown>, kind: "array" | "object", state: Walk) {
  const own = admitted({ ...node, anyOf: undefined, oneOf: undefined, allOf: undefined }, state, 0)
  if (own !== "any" && own.has(kind)) return node
  const branches = [...asArray(node.anyOf), ...asArray(node.oneOf)]
    .map((branch) => resolve(branch as Schema, state))
    .filter((branch): branch is Record<string, unknown> => isRecord(branch))
    .filter((branch) => {
      const types = admitted(branch, state, 0)
      return types !== "any" && types.has(kind)
    })
  if (branches.length === 1) return branches[0]
  // No type said, but the shape says it (a schema of properties only).
  if (own === "any" && (kind === "object" ? isRecord(node.properties) : node.items !== undefined)) return node
  return undefined
}

/** Follows local `$ref`s (`#/$defs/x`, `#/definitions/x`); anything else is not followed. */
function resolve(schema: Schema | undefined, state: Walk): Schema | undefined {
  let node = schema
  for (let hops = 0; isRecord(node) && typeof node.$ref === "string"; hops++) {
    if (hops > 32 || state.hops > 10_000) return undefined
    state.hops++
    const ref = node.$ref
    if (ref === "#") node = state.root
    else if (ref.startsWith("#/")) node = pointer(state.root, ref.slice(2)) as Schema | undefined
    else return undefined
  }
  return node
}

function pointer(root: Schema, path: string): unknown {
  let node: unknown = root
  for (const raw of path.split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return isSchema(node) ? node : undefined
}

function intersect(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>()
  for (const type of a) {
    if (b.has(type)) out.add(type)
    // "integer" is a kind of "number".
    else if (type === "integer" && b.has("number")) out.add("integer")
    else if (type === "number" && b.has("integer")) out.add("integer")
  }
  return out
}

function jsonType(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number"
  return typeof value
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "boolean" || isRecord(value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
