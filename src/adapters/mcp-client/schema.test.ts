import { describe, expect, it } from "vitest"
import { z } from "zod"
import { inputCodec, normaliseInputSchema } from "./schema.ts"

const advertised = (schema: Record<string, unknown>) => {
  const { $schema: _, ...rest } = z.toJSONSchema(inputCodec(schema), { io: "input", unrepresentable: "any" })
  return rest
}

describe("normaliseInputSchema", () => {
  it.each([
    ["nothing", undefined, { type: "object", properties: {} }],
    ["an empty schema", {}, { type: "object", properties: {} }],
    ["a schema without properties", { type: "object" }, { type: "object", properties: {} }],
    [
      "a schema without a type",
      { properties: { a: { type: "string" } } },
      {
        type: "object",
        properties: { a: { type: "string" } },
      },
    ],
    [
      "a complete schema, unchanged",
      { type: "object", properties: {}, required: [] },
      {
        type: "object",
        properties: {},
        required: [],
      },
    ],
  ])("%s", (_, schema, expected) => {
    expect(normaliseInputSchema(schema)).toEqual(expected)
  })
})

describe("inputCodec", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string", description: "Where" },
      depth: { type: "integer", minimum: 0, default: 1 },
      node: { $ref: "#/$defs/node" },
    },
    required: ["path"],
    $defs: { node: { type: "object", properties: { name: { type: "string" } } } },
  }

  it("advertises the server's schema exactly", () => {
    expect(advertised(schema)).toEqual(schema)
  })

  it("keeps the server's $schema when it names one", () => {
    const draft7 = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: {} }
    expect(z.toJSONSchema(inputCodec(draft7), { io: "input" })).toEqual(draft7)
  })

  it("validates against the schema and passes the arguments on unchanged (no defaults filled in)", () => {
    const codec = inputCodec(schema)
    expect(codec.parse({ path: "a", extra: true })).toEqual({ path: "a", extra: true })
    const result = codec.safeParse({ depth: -1 })
    expect(result.success).toBe(false)
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual(["path", "depth"])
  })

  it("treats missing arguments as {}", () => {
    expect(inputCodec({ type: "object", properties: {} }).parse(undefined)).toEqual({})
    expect(inputCodec({ type: "object", properties: {} }).parse(null)).toEqual({})
  })

  it("refuses arguments that are not an object", () => {
    const result = inputCodec({ type: "object", properties: {} }).safeParse(["a"])
    expect(result.error?.issues[0]?.message).toBe("Expected an object of arguments, got a list")
  })

  it("still advertises, and checks only for an object, where Zod cannot express the schema", () => {
    const conditional = {
      type: "object",
      properties: { a: { not: { type: "null" } } },
    }
    expect(advertised(conditional)).toEqual(conditional)
    expect(inputCodec(conditional).parse({ a: null })).toEqual({ a: null })
    expect(inputCodec(conditional).safeParse("a").success).toBe(false)
  })

  it("leaves a root `id` out of what is advertised (Zod would move it to $defs)", () => {
    expect(advertised({ id: "urn:x", type: "object", properties: {} })).toEqual({
      type: "object",
      properties: {},
    })
  })
})
