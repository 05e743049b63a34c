import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  forProvider,
  normalizeSchema,
  prepareSchema,
  restoreOptional,
  schemaFamily,
  strictSchema,
} from "./schema.ts"

const MAX = Number.MAX_SAFE_INTEGER

describe("normalizeSchema", () => {
  it.each([
    [
      "inlines local $defs and drops them",
      {
        type: "object",
        properties: { a: { $ref: "#/$defs/Point" }, b: { $ref: "#/definitions/Name", description: "who" } },
        $defs: { Point: { type: "object", properties: { x: { type: "number" } } } },
        definitions: { Name: { type: "string" } },
      },
      {
        type: "object",
        properties: {
          a: { type: "object", properties: { x: { type: "number" } } },
          b: { type: "string", description: "who" },
        },
      },
    ],
    [
      "drops additionalProperties: true, keeps false",
      {
        type: "object",
        properties: { inner: { type: "object", additionalProperties: true } },
        additionalProperties: false,
      },
      { type: "object", properties: { inner: { type: "object" } }, additionalProperties: false },
    ],
    [
      "removes null from optional properties only",
      {
        type: "object",
        properties: {
          optional: { anyOf: [{ type: "string" }, { type: "null" }], description: "d" },
          required: { anyOf: [{ type: "string" }, { type: "null" }] },
          typed: { type: ["integer", "null"], minimum: 0, maximum: 5 },
        },
        required: ["required"],
      },
      {
        type: "object",
        properties: {
          optional: { type: "string", description: "d" },
          required: { anyOf: [{ type: "string" }, { type: "null" }] },
          typed: { type: "integer", minimum: 0, maximum: 5 },
        },
        required: ["required"],
      },
    ],
    [
      "collapses a number with the non-finite enums",
      { anyOf: [{ type: "number" }, { enum: ["NaN", "Infinity", "-Infinity"] }] },
      { type: "number" },
    ],
    [
      "keeps a union of number constants",
      {
        anyOf: [
          { type: "number", const: 1 },
          { type: "number", const: 2 },
        ],
      },
      {
        anyOf: [
          { type: "number", const: 1 },
          { type: "number", const: 2 },
        ],
      },
    ],
    [
      "unwraps a one-member anyOf (outer keys win)",
      { anyOf: [{ type: "string", description: "inner" }], description: "outer" },
      { type: "string", description: "outer" },
    ],
    [
      "flattens allOf without collisions",
      { allOf: [{ type: "object" }, { properties: { a: { type: "string" } } }], description: "x" },
      { type: "object", properties: { a: { type: "string" } }, description: "x" },
    ],
    [
      "keeps allOf whose members collide",
      { allOf: [{ type: "object" }, { type: "object", required: [] }] },
      { allOf: [{ type: "object" }, { type: "object", required: [] }] },
    ],
    [
      "bounds unbounded integers, keeps given bounds",
      {
        type: "object",
        properties: { n: { type: "integer" }, m: { type: "integer", exclusiveMinimum: 0 } },
      },
      {
        type: "object",
        properties: {
          n: { type: "integer", minimum: -MAX, maximum: MAX },
          m: { type: "integer", exclusiveMinimum: 0, maximum: MAX },
        },
      },
    ],
  ])("%s", (_name, input, expected) => {
    const before = structuredClone(input)
    expect(normalizeSchema(input)).toEqual(expected)
    expect(input).toEqual(before)
  })

  it("keeps a recursive reference and its definition", () => {
    const Node: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(Node) }))
    const schema = z.toJSONSchema(z.object({ root: Node }), { io: "input" }) as Record<string, unknown>
    const out = normalizeSchema(schema)
    const text = JSON.stringify(out)
    expect(text).toContain('"$ref":"#/$defs/')
    const defs = out.$defs as Record<string, unknown>
    expect(Object.keys(defs)).toHaveLength(1)
    // Every remaining reference resolves.
    for (const ref of text.matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)) expect(defs[ref[1]!]).toBeDefined()
  })
})

describe("provider families", () => {
  it.each([
    [{ providerID: "google", modelID: "x" }, "gemini"],
    [{ providerID: "openai-compatible", modelID: "gemini-2.5-pro" }, "gemini"],
    [{ providerID: "moonshotai", modelID: "x" }, "moonshot"],
    [{ providerID: "openrouter", modelID: "moonshotai/Kimi-K2" }, "moonshot"],
    [{ providerID: "openai", modelID: "gpt-5" }, "openai"],
    [{ providerID: "anthropic", modelID: "claude" }, "other"],
  ])("%j is %s", (target, family) => {
    expect(schemaFamily(target)).toBe(family)
  })

  const gemini = { providerID: "google", modelID: "gemini-2.5-pro" }

  it("Gemini: string enums, required trimmed, typed items, no object keys on non-objects", () => {
    const input = {
      type: "object",
      properties: {
        level: { type: "integer", enum: [1, 2, 3] },
        mode: { enum: ["a", true] },
        tags: { type: "array" },
        pairs: { type: "array", items: { type: "number" } },
        name: { type: "string", properties: { x: {} }, required: ["x"] },
      },
      required: ["level", "ghost"],
    }
    expect(forProvider(input, gemini)).toEqual({
      type: "object",
      properties: {
        level: { type: "string", enum: ["1", "2", "3"] },
        mode: { enum: ["a", "true"] },
        tags: { type: "array", items: { type: "string" } },
        pairs: { type: "array", items: { type: "number" } },
        name: { type: "string" },
      },
      required: ["level"],
    })
  })

  it("Moonshot: a $ref node keeps only the $ref; tuple items become the first", () => {
    const input = {
      type: "object",
      properties: {
        a: { $ref: "#/$defs/A", description: "dropped" },
        t: { type: "array", items: [{ type: "string" }, { type: "number" }] },
      },
    }
    expect(forProvider(input, { providerID: "moonshotai", modelID: "kimi-k2" })).toEqual({
      type: "object",
      properties: { a: { $ref: "#/$defs/A" }, t: { type: "array", items: { type: "string" } } },
    })
  })

  it("other providers get the normalised schema unchanged", () => {
    const input = { type: "object", properties: { e: { type: "integer", enum: [1] } } }
    expect(forProvider(input, { providerID: "anthropic", modelID: "claude" })).toBe(input)
  })

  it("a real tool schema for Gemini has no non-string enum and bounded integers", () => {
    const schema = z.toJSONSchema(
      z.object({
        count: z.number().int().optional(),
        kind: z.union([z.literal(1), z.literal(2)]),
        nullable: z.string().nullable().optional(),
      }),
      { io: "input" },
    ) as Record<string, unknown>
    const out = prepareSchema(schema, gemini)
    const properties = out.properties as Record<string, Record<string, unknown>>
    expect(properties.count).toMatchObject({ type: "integer" })
    expect(properties.nullable).toEqual({ type: "string" })
    expect(JSON.stringify(out)).not.toMatch(/"enum":\[[^\]]*\d\]/)
  })
})

describe("OpenAI strict mode", () => {
  const schema = normalizeSchema(
    z.toJSONSchema(
      z.object({
        path: z.string(),
        limit: z.number().int().optional(),
        mode: z.enum(["a", "b"]).optional(),
        nested: z.object({ deep: z.string().optional() }).optional(),
        dropped: z.string().nullable().optional(),
        keep: z.string().nullable(),
      }),
      { io: "input" },
    ) as Record<string, unknown>,
  )

  it("closes every object, requires every property, makes the optional ones nullable", () => {
    const strict = strictSchema(schema)!
    expect(strict.additionalProperties).toBe(false)
    expect(strict.required).toEqual(["path", "limit", "mode", "nested", "dropped", "keep"])
    const properties = strict.properties as Record<string, Record<string, unknown>>
    expect(properties.path).toEqual({ type: "string" })
    expect(properties.limit?.type).toEqual(["integer", "null"])
    expect(properties.mode?.anyOf).toEqual([{ type: "string", enum: ["a", "b"] }, { type: "null" }])
    expect(properties.nested).toMatchObject({
      type: ["object", "null"],
      additionalProperties: false,
      required: ["deep"],
    })
    expect(properties.keep).toEqual({ type: ["string", "null"] })
  })

  it("is undefined for schemas that cannot be strict", () => {
    expect(strictSchema({ type: "object" })).toBeUndefined()
    expect(
      strictSchema({ type: "object", properties: {}, additionalProperties: { type: "string" } }),
    ).toBeUndefined()
    expect(strictSchema({ type: "object", properties: { a: { $ref: "#/$defs/A" } } })).toBeUndefined()
    expect(strictSchema({ type: "object", properties: {} })).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false,
    })
  })

  it("restoreOptional turns the model's nulls back into omitted properties", () => {
    expect(
      restoreOptional(
        { path: "a", limit: null, mode: null, nested: { deep: null }, dropped: null, keep: null },
        schema,
      ),
    ).toEqual({ path: "a", nested: {}, keep: null })
    expect(restoreOptional("text", schema)).toBe("text")
  })
})
