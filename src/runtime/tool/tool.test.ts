import { describe, expect, it } from "vitest"
import { z } from "zod"
import * as Tool from "./index.ts"
import { inputJsonSchema, internals, isTool } from "./internal.ts"

const ctx = {} as Tool.Context

describe("Tool.make", () => {
  it("is opaque: no schema or executor fields on the value", () => {
    const tool = Tool.make({ description: "d", input: z.object({}), execute: () => "ok" })
    expect(Object.keys(tool)).toEqual([])
    expect(Object.isFrozen(tool)).toBe(true)
    expect((tool as any).execute).toBeUndefined()
    expect(isTool(tool)).toBe(true)
    expect(isTool({ execute: () => "x" })).toBe(false)
  })

  it("has a single executor: changing the config afterwards changes nothing", async () => {
    const config = { description: "first", input: z.object({}), execute: () => "original" }
    const tool = Tool.make(config)
    config.execute = () => "swapped"
    config.description = "second"
    expect(await internals(tool).execute({}, ctx)).toBe("original")
    expect(internals(tool).description).toBe("first")
  })

  it("projects an encoded string as text and other values as structured output", () => {
    const str = Tool.make({ description: "d", input: z.object({}), execute: () => "hi" })
    expect(internals(str).project({}, "hi")).toEqual({ content: [{ type: "text", text: "hi" }] })
    const obj = Tool.make({ description: "d", input: z.object({}), execute: () => ({ n: 1 }) })
    const projected = internals(obj).project({}, { n: 1 })
    expect(projected.structured).toEqual({ n: 1 })
    expect(projected.content).toEqual([{ type: "text", text: JSON.stringify({ n: 1 }, null, 2) }])
  })

  it("derives the model-facing JSON Schema from the input codec's input side", () => {
    const tool = Tool.make({
      description: "d",
      input: z.object({ path: z.string().describe("where"), limit: z.number().int().optional() }),
      execute: () => "",
    })
    const schema = inputJsonSchema(tool)
    expect(schema.type).toBe("object")
    expect((schema.properties as any).path).toMatchObject({ type: "string", description: "where" })
    expect(schema.required).toEqual(["path"])
  })

  it("rejects configs without an executor", () => {
    expect(() => Tool.make({ description: "d", input: z.object({}) } as any)).toThrow(/execute/)
  })
})

describe("Tool.define", () => {
  const params = z.object({ a: z.string() })

  it("accepts a static object, and every init returns a fresh, unmutated copy", async () => {
    const execute = async () => ({ title: "t", output: "o", metadata: {} })
    const definition = { description: "static", parameters: params, execute }
    const info = Tool.define("static", definition)
    const first = await info.init()
    const second = await info.init()
    expect(first).not.toBe(second)
    expect(first).not.toBe(definition)
    expect(definition.execute).toBe(execute)
    ;(first as { description: string }).description = "changed"
    expect((await info.init()).description).toBe("static")
  })

  it("passes the agent to an init function, per init", async () => {
    const seen: (string | undefined)[] = []
    const info = Tool.define("dyn", (init) => {
      seen.push(init?.agent?.name)
      return {
        description: `for ${init?.agent?.name}`,
        parameters: params,
        execute: async () => ({ title: "", output: "", metadata: {} }),
      }
    })
    expect((await info.init({ agent: { name: "plan" } })).description).toBe("for plan")
    expect((await info.init({ agent: { name: "build" } })).description).toBe("for build")
    expect(seen).toEqual(["plan", "build"])
    expect(info.id).toBe("dyn")
  })
})

describe("ToolFailure", () => {
  it("carries a message and metadata and is recognisable", () => {
    const failure = new Tool.ToolFailure("nope", { metadata: { a: 1 } })
    expect(Tool.isToolFailure(failure)).toBe(true)
    expect(Tool.isToolFailure(new Error("x"))).toBe(false)
    expect(failure.metadata).toEqual({ a: 1 })
  })
})
