import { describe, expect, it } from "vitest"
import { z } from "zod"
import { coerceInput, exactNumber, hasCoercible } from "./coerce.ts"

const jsonOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" })

describe("exactNumber", () => {
  it("takes a string that is exactly how JSON writes a number", () => {
    expect(exactNumber("2")).toBe(2)
    expect(exactNumber("-3")).toBe(-3)
    expect(exactNumber("1.5")).toBe(1.5)
    expect(exactNumber("0")).toBe(0)
  })

  it("refuses anything inexact", () => {
    for (const text of [
      "2abc",
      "",
      " 2",
      "2 ",
      "0x10",
      "1e400",
      "1e3",
      ".5",
      "01",
      "1.50",
      "-0",
      "+1",
      "NaN",
    ]) {
      expect(exactNumber(text), text).toBeUndefined()
    }
    // Past 2^53 the string would not survive the round trip.
    expect(exactNumber("12345678901234567890")).toBeUndefined()
  })
})

describe("hasCoercible", () => {
  it("finds a string coerceInput could change anywhere in the input, and nothing else", () => {
    expect(hasCoercible({ filePath: "notes.txt", limit: 2, flags: [true] })).toBe(false)
    expect(hasCoercible({ filePath: "notes.txt", options: { limit: "2" } })).toBe(true)
    expect(hasCoercible({ list: ["a", "false"] })).toBe(true)
    expect(hasCoercible({ n: "2abc", m: " 2", k: "01" })).toBe(false)
    expect(hasCoercible(null)).toBe(false)
  })

  it("agrees with coerceInput: where it finds nothing, coerceInput changes nothing", () => {
    const schema = { type: "object", properties: { a: { type: "number" }, b: { type: "boolean" } } }
    for (const input of [{ a: "x", b: "yes" }, { a: 1, b: true }, { a: "1e3" }])
      if (!hasCoercible(input)) expect(coerceInput(schema, input).coerced).toEqual([])
  })
})

describe("coerceInput", () => {
  const read = jsonOf(
    z.object({
      filePath: z.string(),
      offset: z.coerce.number().optional(),
      limit: z.number().int().optional(),
    }),
  )

  it("replaces exact numbers where the schema wants a number, and says which", () => {
    const out = coerceInput(read, { filePath: "a.txt", offset: "2", limit: "1" })
    expect(out.value).toEqual({ filePath: "a.txt", offset: 2, limit: 1 })
    expect(out.coerced).toEqual([
      { path: "offset", from: "2", to: 2 },
      { path: "limit", from: "1", to: 1 },
    ])
  })

  it("leaves inexact strings, strings where strings are wanted, and non-integers for integers", () => {
    const input = { filePath: "2", offset: "2abc", limit: "1.5" }
    const out = coerceInput(read, input)
    expect(out.value).toBe(input)
    expect(out.coerced).toEqual([])
  })

  it("booleans: only exactly true or false", () => {
    const schema = jsonOf(z.object({ all: z.boolean(), some: z.boolean().optional() }))
    expect(coerceInput(schema, { all: "true", some: "false" }).value).toEqual({ all: true, some: false })
    expect(coerceInput(schema, { all: "True", some: "1" }).coerced).toEqual([])
  })

  it("nested objects and arrays, nullable and union fields", () => {
    const schema = jsonOf(
      z.object({
        edits: z.array(z.object({ line: z.number(), replace: z.boolean() })),
        pair: z.tuple([z.string(), z.number()]),
        maybe: z.number().nullable(),
        either: z.union([z.number(), z.string()]),
      }),
    )
    const out = coerceInput(schema, {
      edits: [
        { line: "3", replace: "true" },
        { line: 4, replace: false },
      ],
      pair: ["7", "8"],
      maybe: "-1",
      either: "5",
    })
    expect(out.value).toEqual({
      edits: [
        { line: 3, replace: true },
        { line: 4, replace: false },
      ],
      pair: ["7", 8],
      maybe: -1,
      either: "5",
    })
    expect(out.coerced.map((c) => c.path)).toEqual(["edits.0.line", "edits.0.replace", "pair.1", "maybe"])
  })

  it("an MCP server's JSON Schema, with $defs and $ref", () => {
    const schema = {
      type: "object",
      properties: {
        page: { $ref: "#/$defs/count" },
        filter: { type: "object", additionalProperties: { type: "integer" } },
      },
      $defs: { count: { type: "integer", minimum: 0 } },
    }
    const out = coerceInput(schema, { page: "2", filter: { min: "10", name: "x" } })
    expect(out.value).toEqual({ page: 2, filter: { min: 10, name: "x" } })
  })

  it("a schema that says nothing, or refers to itself, changes nothing and ends", () => {
    expect(coerceInput({}, { a: "1" }).coerced).toEqual([])
    expect(coerceInput(undefined, { a: "1" }).coerced).toEqual([])
    const loop = { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/a" } } }
    expect(coerceInput(loop, { a: "1" }).coerced).toEqual([])
  })
})
