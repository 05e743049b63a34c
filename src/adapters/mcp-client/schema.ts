import { z } from "zod"

/**
 * A tool's input schema as toolbelt advertises it: the server's own JSON Schema, with `type:
 * "object"` and `properties: {}` put in when missing (providers require both).
 */
export function normaliseInputSchema(schema: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = isRecord(schema) ? { ...schema } : {}
  out.type = "object"
  if (!isRecord(out.properties)) out.properties = {}
  return out
}

/**
 * The input codec of an MCP tool.
 * 1. Advertises exactly `schema` (attached as Zod metadata to a schema that adds nothing of its own,
 *    so `z.toJSONSchema` returns the server's schema; a root `id`, which Zod would move to `$defs`,
 *    is left out of what is advertised).
 * 2. Validates with `z.fromJSONSchema(schema)`; where Zod cannot express the schema (`if`/`then`,
 *    `not`, unresolvable `$ref`s, ...) it only checks that the input is an object, and the server
 *    validates the rest.
 * 3. Passes the arguments on as the model sent them (defaults are the server's business); missing
 *    arguments become `{}`.
 */
export function inputCodec(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const validator = validatorFor(schema)
  const { id: _id, ...advertised } = schema
  return z
    .unknown()
    .transform((value) => (value ?? {}) as Record<string, unknown>)
    .superRefine((value, ctx) => {
      if (!isRecord(value)) {
        ctx.addIssue({ code: "custom", message: `Expected an object of arguments, got ${describe(value)}` })
        return
      }
      const result = validator.safeParse(value)
      if (result.success) return
      for (const issue of result.error.issues) {
        ctx.addIssue({ code: "custom", message: issue.message, path: issue.path })
      }
    })
    .meta(advertised) as unknown as z.ZodType<Record<string, unknown>>
}

function validatorFor(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
  } catch {
    return z.record(z.string(), z.unknown())
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list"
  return typeof value === "string" ? "a string" : typeof value
}
