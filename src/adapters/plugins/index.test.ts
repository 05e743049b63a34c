import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import { type Plugin, type ToolContext, type ToolResult, tool } from "./index.ts"

describe("tool", () => {
  it("returns the definition unchanged and carries zod as tool.schema", () => {
    const definition = {
      description: "d",
      args: { name: tool.schema.string() },
      execute: async ({ name }: { name: string }) => name,
    }
    expect(tool(definition)).toBe(definition)
    expect(tool.schema).toBe(z)
  })

  it("types execute's arguments from the Zod shape, and its context", () => {
    tool({
      description: "d",
      args: { name: tool.schema.string(), times: tool.schema.number().optional() },
      async execute(args, ctx) {
        expectTypeOf(args).toEqualTypeOf<{ name: string; times?: number | undefined }>()
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>()
        expectTypeOf(ctx.ask).returns.toEqualTypeOf<Promise<void>>()
        return { output: args.name, title: "t" } satisfies ToolResult
      },
    })
    tool({ description: "no args", args: null, execute: () => "ok" })
  })

  it("types a plugin: input in, hooks and tools out", () => {
    const plugin: Plugin = async ({ directory, worktree }) => ({
      "tool.execute.before": (input, output) => {
        expectTypeOf(input.tool).toEqualTypeOf<string>()
        output.args = { directory, worktree }
      },
      tool: { hello: tool({ description: "d", args: {}, execute: () => "hi" }) },
    })
    expectTypeOf(plugin).toBeFunction()
  })
})
