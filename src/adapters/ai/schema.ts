/** A JSON Schema node as plain data (the tools' schemas come from `z.toJSONSchema` or plugins). */
export type JsonSchema = Record<string, unknown>

/** The model a schema is prepared for: provider transforms depend on it. */
export interface SchemaTarget {
  readonly providerID: string
  readonly modelID: string
}

/** The provider family whose schema rules apply. */
export type SchemaFamily = "gemini" | "moonshot" | "openai" | "other"

const MAX_SAFE = Number.MAX_SAFE_INTEGER
const COMBINERS = ["anyOf", "oneOf", "allOf"] as const
const NON_FINITE = new Set(["NaN", "Infinity", "-Infinity"])

/**
 * The JSON Schema a provider receives for one tool.
 *
 * 1. Normalise (`normalizeSchema`): inline local `$ref`s, drop `additionalProperties: true`, simplify
 *    `anyOf`/`allOf`, bound integers.
 * 2. Apply the provider family's restrictions (`forProvider`): Gemini's and Moonshot's.
 * Pure: the input is never changed.
 */
export function prepareSchema(schema: JsonSchema, target: SchemaTarget): JsonSchema {
  return forProvider(normalizeSchema(schema), target)
}

export function schemaFamily(target: SchemaTarget): SchemaFamily {
  const provider = target.providerID.toLowerCase()
  const model = target.modelID.toLowerCase()
  if (provider === "google" || provider === "google-vertex" || model.includes("gemini")) return "gemini"
  if (provider === "moonshotai" || provider === "moonshot" || model.includes("kimi")) return "moonshot"
  if (provider === "openai" || provider === "azure") return "openai"
  return "other"
}

/**
 * opencode's normalisation, for every provider.
 *
 * 1. Inline local references (`#/$defs/X`, `#/definitions/X`); a recursive reference stays a `$ref`
 *    and keeps its definition, every other definition is dropped once nothing refers to it.
 * 2. Remove `additionalProperties: true` (the default, and some providers reject it).
 * 3. For optional properties, remove `null` from their `anyOf` (a required nullable field keeps it).
 * 4. Collapse `anyOf` of a number and the NaN/Infinity enums into the number; unwrap a one-member
 *    `anyOf`; flatten `allOf` when no keys collide.
 * 5. Give integers without bounds the safe-integer bounds.
 */
export function normalizeSchema(schema: JsonSchema): JsonSchema {
  const defs = { ...asRecord(schema.$defs), ...asRecord(schema.definitions) }
  const kept = new Map<string, JsonSchema>()
  const inlined = inline(schema, defs, [], kept)
  const { $defs: _defs, definitions: _definitions, ...root } = inlined
  const out = normalizeNode(root)
  if (kept.size) {
    const key = schema.$defs !== undefined ? "$defs" : "definitions"
    out[key] = Object.fromEntries([...kept].map(([name, def]) => [name, normalizeNode(def)]))
  }
  return out
}

/** The family's restrictions on an already normalised schema; other providers get it unchanged. */
export function forProvider(schema: JsonSchema, target: SchemaTarget): JsonSchema {
  const family = schemaFamily(target)
  if (family === "gemini") return gemini(schema)
  if (family === "moonshot") return moonshot(schema)
  return schema
}

/**
 * OpenAI strict mode: every object closed (`additionalProperties: false`) with every property
 * required, the optional ones made nullable. Undefined when the schema cannot be strict (an open
 * object, a record, a recursive `$ref`): send that tool without strict mode.
 * Pair it with `restoreOptional`, which turns the model's `null`s back into omitted properties.
 */
export function strictSchema(schema: JsonSchema): JsonSchema | undefined {
  try {
    return strictNode(schema)
  } catch (error) {
    if (error instanceof NotStrict) return undefined
    throw error
  }
}

/**
 * Removes the `null` a strict-mode model sends for an optional property that does not itself accept
 * null (walking objects and arrays along `schema`), so the tool's own validation sees it omitted.
 */
export function restoreOptional(value: unknown, schema: JsonSchema): unknown {
  if (Array.isArray(value)) {
    const items = asRecord(schema.items)
    return Object.keys(items).length ? value.map((item) => restoreOptional(item, items)) : value
  }
  if (!isRecord(value)) return value
  const properties = asRecord(schema.properties)
  if (!Object.keys(properties).length) return value
  const required = new Set(asStrings(schema.required))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const property = asRecord(properties[key])
    if (item === null && !required.has(key) && !acceptsNull(property)) continue
    out[key] = restoreOptional(item, property)
  }
  return out
}

// --- normalisation -------------------------------------------------------------------------------

function inline(
  node: unknown,
  defs: Record<string, unknown>,
  stack: readonly string[],
  kept: Map<string, JsonSchema>,
): any {
  if (Array.isArray(node)) return node.map((item) => inline(item, defs, stack, kept))
  if (!isRecord(node)) return node
  const ref = typeof node.$ref === "string" ? localRef(node.$ref) : undefined
  if (ref !== undefined && defs[ref] !== undefined) {
    const { $ref: _ref, ...siblings } = node
    if (stack.includes(ref)) {
      // Recursive: keep the reference and its (inlined) definition.
      if (!kept.has(ref)) {
        kept.set(ref, {})
        kept.set(ref, inline(defs[ref], defs, [ref], kept))
      }
      return { $ref: `#/${node.$ref.startsWith("#/definitions/") ? "definitions" : "$defs"}/${ref}` }
    }
    const target = inline(defs[ref], defs, [...stack, ref], kept)
    const rest = inline(siblings, defs, stack, kept)
    return isRecord(target) ? { ...target, ...rest } : target
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "$defs" || key === "definitions") {
      out[key] = value
      continue
    }
    out[key] = inline(value, defs, stack, kept)
  }
  return out
}

function localRef(ref: string): string | undefined {
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)
  return match ? decodeURIComponent(match[1]!.replaceAll("~1", "/").replaceAll("~0", "~")) : undefined
}

function normalizeNode(input: unknown): any {
  if (Array.isArray(input)) return input.map(normalizeNode)
  if (!isRecord(input)) return input
  let node: JsonSchema = {}
  for (const [key, value] of Object.entries(input)) {
    if (key === "properties" && isRecord(value)) {
      node[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, normalizeNode(sub)]))
    } else if (key === "$defs" || key === "definitions") {
      node[key] = value
    } else {
      node[key] = normalizeNode(value)
    }
  }

  if (node.additionalProperties === true) delete node.additionalProperties

  // Optional properties need no null: omitting them says the same thing.
  if (isRecord(node.properties)) {
    const required = new Set(asStrings(node.required))
    const properties: JsonSchema = {}
    for (const [name, sub] of Object.entries(node.properties)) {
      properties[name] = required.has(name) || !isRecord(sub) ? sub : withoutNull(sub)
    }
    node.properties = properties
  }

  if (Array.isArray(node.anyOf)) {
    const members = node.anyOf.filter(isRecord)
    if (members.length === node.anyOf.length && isNumberWithNonFinite(members)) {
      const { anyOf: _anyOf, ...rest } = node
      node = { ...rest, type: "number" }
    } else if (node.anyOf.length === 1 && isRecord(node.anyOf[0])) {
      const { anyOf: _anyOf, ...rest } = node
      node = { ...(node.anyOf[0] as JsonSchema), ...rest }
    }
  }

  if (Array.isArray(node.allOf) && node.allOf.every(isRecord)) {
    const { allOf, ...rest } = node
    const seen = new Set(Object.keys(rest))
    let collides = false
    for (const member of allOf as JsonSchema[]) {
      for (const key of Object.keys(member)) {
        if (seen.has(key)) collides = true
        seen.add(key)
      }
    }
    if (!collides) node = Object.assign(rest, ...(allOf as JsonSchema[]))
  }

  if (hasType(node, "integer")) {
    if (node.maximum === undefined && node.exclusiveMaximum === undefined) node.maximum = MAX_SAFE
    if (node.minimum === undefined && node.exclusiveMinimum === undefined) node.minimum = -MAX_SAFE
  }
  return node
}

function withoutNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf.filter((member) => !(isRecord(member) && member.type === "null"))
    if (members.length === schema.anyOf.length) return schema
    const { anyOf: _anyOf, ...rest } = schema
    if (members.length === 1 && isRecord(members[0])) return { ...members[0], ...rest }
    return { ...rest, anyOf: members }
  }
  if (Array.isArray(schema.type) && schema.type.includes("null")) {
    const types = schema.type.filter((type) => type !== "null")
    return { ...schema, type: types.length === 1 ? types[0] : types }
  }
  return schema
}

/** `anyOf` of one plain number and enums of "NaN"/"Infinity"/"-Infinity" only (Effect's encoding). */
function isNumberWithNonFinite(members: JsonSchema[]): boolean {
  let numbers = 0
  let enums = 0
  for (const member of members) {
    if (member.type === "number" && member.const === undefined && member.enum === undefined) numbers++
    else if (Array.isArray(member.enum) && member.enum.every((value) => NON_FINITE.has(String(value))))
      enums++
    else return false
  }
  return numbers === 1 && enums > 0
}

// --- provider families ----------------------------------------------------------------------------

/** Gemini: string enums, `required` ⊆ `properties`, typed array items, no object keys on non-objects. */
function gemini(input: unknown): any {
  if (Array.isArray(input)) return input.map(gemini)
  if (!isRecord(input)) return input
  const node: JsonSchema = {}
  for (const [key, value] of Object.entries(input)) {
    if (key === "properties" && isRecord(value)) {
      node[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, gemini(sub)]))
    } else if (key === "enum" && Array.isArray(value)) {
      node[key] = value.map((item) => String(item))
    } else {
      node[key] = gemini(value)
    }
  }
  if (Array.isArray(node.enum) && (hasType(node, "integer") || hasType(node, "number"))) node.type = "string"
  if (node.type === "object" && Array.isArray(node.required)) {
    const properties = asRecord(node.properties)
    node.required = asStrings(node.required).filter((name) => name in properties)
  }
  if (hasType(node, "array") && !COMBINERS.some((key) => key in node)) {
    const items = isRecord(node.items) ? node.items : {}
    node.items = Object.keys(items).length === 0 ? { type: "string" } : items
  }
  if (node.type !== undefined && !hasType(node, "object")) {
    delete node.properties
    delete node.required
  }
  return node
}

/** Moonshot/Kimi: a `$ref` node keeps only its `$ref`; tuple `items` become their first element. */
function moonshot(input: unknown): any {
  if (Array.isArray(input)) return input.map(moonshot)
  if (!isRecord(input)) return input
  if (typeof input.$ref === "string") return { $ref: input.$ref }
  const node: JsonSchema = {}
  for (const [key, value] of Object.entries(input)) {
    if (key === "items" && Array.isArray(value)) node[key] = value.length ? moonshot(value[0]) : {}
    else if (key === "properties" && isRecord(value)) {
      node[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, moonshot(sub)]))
    } else node[key] = moonshot(value)
  }
  return node
}

// --- OpenAI strict ---------------------------------------------------------------------------------

class NotStrict extends Error {}

function strictNode(input: unknown): any {
  if (Array.isArray(input)) return input.map(strictNode)
  if (!isRecord(input)) return input
  if (typeof input.$ref === "string") throw new NotStrict()
  const node: JsonSchema = {}
  for (const [key, value] of Object.entries(input)) {
    if (key === "properties" && isRecord(value)) continue
    node[key] = strictNode(value)
  }
  if (hasType(node, "object")) {
    const properties = asRecord(input.properties)
    if (isRecord(input.additionalProperties) || input.additionalProperties === true) throw new NotStrict()
    if (!Object.keys(properties).length && input.properties === undefined) throw new NotStrict()
    const required = new Set(asStrings(input.required))
    node.properties = Object.fromEntries(
      Object.entries(properties).map(([name, sub]) => {
        const strict = strictNode(sub)
        return [name, required.has(name) ? strict : nullable(strict)]
      }),
    )
    node.required = Object.keys(properties)
    node.additionalProperties = false
  }
  return node
}

function nullable(schema: JsonSchema): JsonSchema {
  if (acceptsNull(schema)) return schema
  if (typeof schema.type === "string" && !Array.isArray(schema.enum)) {
    return { ...schema, type: [schema.type, "null"] }
  }
  if (Array.isArray(schema.type)) return { ...schema, type: [...schema.type, "null"] }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] }
  const { description, ...rest } = schema
  return {
    anyOf: [rest, { type: "null" }],
    ...(description === undefined ? {} : { description }),
  }
}

function acceptsNull(schema: JsonSchema): boolean {
  if (schema.type === "null") return true
  if (Array.isArray(schema.type) && schema.type.includes("null")) return true
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
  for (const key of ["anyOf", "oneOf"] as const) {
    const members = schema[key]
    if (Array.isArray(members) && members.some((member) => isRecord(member) && acceptsNull(member)))
      return true
  }
  return Object.keys(schema).length === 0
}

// --- helpers ---------------------------------------------------------------------------------------

function hasType(node: JsonSchema, type: string): boolean {
  return node.type === type || (Array.isArray(node.type) && node.type.includes(type))
}

function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function asRecord(value: unknown): Record<string, any> {
  return isRecord(value) ? value : {}
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []
}
