import { describe, expect, it } from "vitest"
import { z } from "zod"
import type { Entry } from "../../runtime/registry/tool-set.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { outputSchemaOf, toolAnnotations } from "./listing.ts"

describe("toolAnnotations", () => {
  it.each([
    ["nothing declared", {}, {}],
    ["a reader", { readOnly: true }, { readOnlyHint: true }],
    ["a writer", { destructive: true }, { destructiveHint: true }],
    ["a web tool", { readOnly: true, openWorld: true }, { readOnlyHint: true, openWorldHint: true }],
    [
      "all of them",
      { readOnly: false, destructive: false, idempotent: true, openWorld: false },
      { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    ],
  ])("%s", (_name, annotations, hints) => {
    expect(toolAnnotations(annotations)).toEqual(hints)
  })
})

function entry(value: Entry["value"]): Entry {
  return { identity: Symbol("t"), name: "t", value, source: "test", placement: "project" }
}

describe("outputSchemaOf", () => {
  it("the JSON Schema of a Tool.make tool's declared output", () => {
    const tool = Tool.make({
      description: "d",
      input: z.object({}),
      output: z.object({ n: z.number().int() }),
      execute: () => ({ n: 1 }),
    })
    expect(outputSchemaOf(entry(tool))).toMatchObject({
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    })
  })

  it("none without a declared output", () => {
    const tool = Tool.make({ description: "d", input: z.object({}), execute: () => ({ n: 1 }) })
    expect(outputSchemaOf(entry(tool))).toBeUndefined()
  })

  it("none for a v1 tool (its result is projected to text)", () => {
    const info = Tool.define("v1", {
      description: "d",
      parameters: z.object({}),
      execute: async () => ({ title: "", output: "x", metadata: {} }),
    })
    expect(outputSchemaOf(entry(info))).toBeUndefined()
  })
})
