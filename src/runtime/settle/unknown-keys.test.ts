import { describe, expect, it } from "vitest"
import { z } from "zod"
import { unknownKeys } from "./unknown-keys.ts"

const shape = z.object({
  filePath: z.string(),
  offset: z.number().optional(),
  edits: z.array(z.object({ oldString: z.string() })).default([]),
  byName: z.record(z.string(), z.object({ on: z.boolean() })).optional(),
  loose: z.looseObject({ a: z.string() }).optional(),
  strict: z.strictObject({ a: z.string() }).optional(),
  either: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]).optional(),
  piped: z
    .object({ a: z.string() })
    .transform((value) => value.a)
    .optional(),
})

describe("unknownKeys", () => {
  it.each<[string, unknown, [PropertyKey[], string[]][]]>([
    ["none", { filePath: "a", offset: 1 }, []],
    ["a misspelled parameter", { filePath: "a", ofset: 1 }, [[["ofset"], Object.keys(shape.shape)]]],
    [
      "in an array's objects (behind a default)",
      { edits: [{ oldString: "x" }, { old: 1 }] },
      [[["edits", 1, "old"], ["oldString"]]],
    ],
    ["in a record's values", { byName: { k: { on: true, of: 1 } } }, [[["byName", "k", "of"], ["on"]]]],
    ["in a transformed object's input", { piped: { a: "x", b: 1 } }, [[["piped", "b"], ["a"]]]],
    ["not in a loose object (it keeps them)", { loose: { a: "x", b: 1 } }, []],
    ["not in a strict object (its own rule reports them)", { strict: { a: "x", b: 1 } }, []],
    ["not under a union (which object is meant is not known)", { either: { a: "x", c: 1 } }, []],
    ["not in what is not an object", { filePath: ["x"], edits: "x" }, []],
  ])("%s", (_, input, expected) => {
    expect(unknownKeys(shape, input).map(({ path, known }) => [path, known])).toEqual(expected)
  })

  it("finds nothing in a schema that is not an object (an MCP tool's own codec)", () => {
    expect(
      unknownKeys(
        z.unknown().transform((value) => value),
        { anything: 1 },
      ),
    ).toEqual([])
    expect(unknownKeys(shape, null)).toEqual([])
  })
})
