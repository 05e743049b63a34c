// Fields a call sent that its tool's schema does not have. A Zod object (`z.object`) drops them
// silently, so the tool would run without what the model meant by them (a misspelled `ofset` reads from
// the start): settlement refuses the call and names them instead. Objects that say what to do with
// extra keys (`z.looseObject`, `z.strictObject`, a catchall) keep their own rule, and where the schema
// does not say which object a value is checked against (a union, a transform), nothing is reported.

import type { z } from "zod"

/** One field the schema does not know: where it was sent, and the fields that object does have. */
export interface UnknownKey {
  readonly path: readonly PropertyKey[]
  readonly known: readonly string[]
}

/** The minimal view of a Zod 4 schema's definition this walk reads. */
interface Def {
  readonly type: string
  readonly shape?: Record<string, z.ZodType>
  readonly catchall?: z.ZodType
  readonly innerType?: z.ZodType
  readonly in?: z.ZodType
  readonly element?: z.ZodType
  readonly valueType?: z.ZodType
}

/** Wrappers whose value is checked by the schema they wrap. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "nonoptional", "readonly", "catch"])

/** The keys of `value` (at any depth) that a silently stripping object in `schema` does not declare. */
export function unknownKeys(
  schema: z.ZodType,
  value: unknown,
  path: readonly PropertyKey[] = [],
): UnknownKey[] {
  const def = defOf(schema)
  if (!def) return []
  if (WRAPPERS.has(def.type) && def.innerType) return unknownKeys(def.innerType, value, path)
  if (def.type === "pipe" && def.in) return unknownKeys(def.in, value, path)
  if (def.type === "array" && def.element && Array.isArray(value))
    return value.flatMap((item, index) => unknownKeys(def.element!, item, [...path, index]))
  if (def.type === "record" && def.valueType && isPlainObject(value))
    return Object.entries(value).flatMap(([key, item]) => unknownKeys(def.valueType!, item, [...path, key]))
  if (def.type !== "object" || !def.shape || !isPlainObject(value)) return []
  const shape = def.shape
  const known = Object.keys(shape)
  const out: UnknownKey[] = []
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(shape, key)) out.push(...unknownKeys(shape[key]!, item, [...path, key]))
    else if (def.catchall === undefined) out.push({ path: [...path, key], known })
  }
  return out
}

function defOf(schema: z.ZodType): Def | undefined {
  const def = (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def
  return typeof def?.type === "string" ? def : undefined
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
