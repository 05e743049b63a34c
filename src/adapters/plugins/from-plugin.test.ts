import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Registry } from "../../runtime/registry/registry.ts"
import type { Context } from "../../runtime/tool/context.ts"
import { inputJsonSchema, internals } from "../../runtime/tool/internal.ts"
import { DefinitionError, fromPlugin, isToolDefinition } from "./from-plugin.ts"
import { tool } from "./index.ts"

const where = { directory: "/project", worktree: "/repo" }

/** The executable tool behind a converted definition, as settlement sees it. */
async function convert(definition: unknown) {
  const registry = new Registry()
  registry.register({ custom: fromPlugin("custom", definition, where) })
  return registry.instantiate(registry.resolve("custom")!)
}

function context(overrides: Partial<Context> = {}): Context & { progress: unknown[]; asks: unknown[] } {
  const progress: unknown[] = []
  const asks: unknown[] = []
  return {
    sessionID: "ses_1",
    messageID: "msg_1",
    agent: "build",
    callID: "call_1",
    abort: new AbortController().signal,
    extra: {},
    messages: [],
    metadata: (update) => progress.push(update),
    ask: async (input) => {
      asks.push(input)
    },
    progress,
    asks,
    ...overrides,
  }
}

describe("isToolDefinition", () => {
  it.each([
    [{ description: "d", args: {}, execute() {} }, true],
    [{ description: "d", execute() {} }, true],
    [{ args: null, execute() {} }, true],
    [{ description: "d", args: {} }, false],
    [{ execute() {} }, false],
    [() => {}, false],
    ["tool", false],
    [null, false],
  ])("%o → %s", (value, expected) => {
    expect(isToolDefinition(value)).toBe(expected)
  })
})

describe("fromPlugin: arguments", () => {
  it("turns a Zod raw shape into z.object (validation and JSON Schema)", async () => {
    const made = await convert(
      tool({ description: "d", args: { n: z.number().describe("a number") }, execute: () => "" }),
    )
    expect(inputJsonSchema(made)).toMatchObject({
      type: "object",
      properties: { n: { type: "number", description: "a number" } },
      required: ["n"],
    })
    expect(internals(made).input.safeParse({ n: "x" }).success).toBe(false)
  })

  it("advertises JSON-schema fragments as given, all required, and checks only presence", async () => {
    const made = await convert({
      description: "d",
      args: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } },
      execute: () => "",
    })
    expect(inputJsonSchema(made)).toMatchObject({
      properties: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } },
      required: ["a", "b"],
    })
    const input = internals(made).input
    expect(input.safeParse({ a: "x" }).success).toBe(false)
    expect(input.safeParse({ a: 1, b: null, c: true })).toMatchObject({
      success: true,
      data: { a: 1, b: null, c: true },
    })
  })

  it.each([null, undefined])("reads args %s as no arguments", async (args) => {
    const made = await convert({ description: "d", args, execute: () => "" })
    expect(inputJsonSchema(made)).toMatchObject({ type: "object", properties: {} })
  })

  it.each([
    [{ description: 5, args: {}, execute() {} }, /description must be a string/],
    [{ description: "d", args: [], execute() {} }, /args must be an object of Zod schemas/],
    [{ description: "d", args: { a: "string" }, execute() {} }, /args\.a must be a Zod schema/],
    [
      { description: "d", args: { a: { _def: {}, safeParse() {} } }, execute() {} },
      /args\.a is a Zod 3 schema; use Zod 4/,
    ],
    [
      { description: "d", args: { a: z.string(), b: { type: "string" } }, execute() {} },
      /args mixes Zod schemas \(a\) and JSON Schema fragments \(b\)/,
    ],
    [{ description: "d", args: {} }, /is not a tool/],
  ])("refuses a malformed definition: %o", (definition, message) => {
    expect(() => fromPlugin("custom", definition, where)).toThrow(DefinitionError)
    expect(() => fromPlugin("custom", definition, where)).toThrow(message)
  })
})

describe("fromPlugin: execution", () => {
  it("returns a string result as the output, leaving the title to the runtime", async () => {
    const made = await convert({ description: "d", args: {}, execute: () => "plain" })
    expect(await internals(made).execute({}, context())).toEqual({ output: "plain" })
  })

  it("keeps title, metadata and attachments, but never a claim to have truncated", async () => {
    const attachments = [{ type: "file", mime: "image/png", url: "data:image/png;base64,AA==" }]
    const made = await convert({
      description: "d",
      args: {},
      execute: async () => ({ title: "t", output: "o", metadata: { a: 1, truncated: true }, attachments }),
    })
    expect(await internals(made).execute({}, context())).toEqual({
      title: "t",
      output: "o",
      metadata: { a: 1 },
      attachments,
    })
  })

  it.each([42, undefined, { title: "no output" }])(
    "treats a return of %o as a bug in the tool",
    async (value) => {
      const made = await convert({ description: "d", args: {}, execute: () => value })
      await expect(internals(made).execute({}, context())).rejects.toThrow(
        /custom tool custom returned .*; it must return a string or \{ output: string/,
      )
    },
  )

  it("gives the context: identity, directory and worktree, metadata and ask passed through", async () => {
    let seen: Record<string, unknown> = {}
    const made = await convert(
      tool({
        description: "d",
        args: {},
        async execute(_args, ctx) {
          ctx.metadata({ title: "working" })
          await ctx.ask({ permission: "p", patterns: ["x"] })
          seen = { ...ctx }
          return "done"
        },
      }),
    )
    const ctx = context()
    await internals(made).execute({}, ctx)
    expect(seen).toMatchObject({
      sessionID: "ses_1",
      messageID: "msg_1",
      agent: "build",
      callID: "call_1",
      directory: "/project",
      worktree: "/repo",
    })
    expect(ctx.progress).toEqual([{ title: "working" }])
    expect(ctx.asks).toEqual([{ permission: "p", patterns: ["x"] }])
  })

  it("prefers the directory and worktree the call carries", async () => {
    let seen: Record<string, unknown> = {}
    const made = await convert({
      description: "d",
      args: {},
      execute: (_args: unknown, ctx: Record<string, unknown>) => {
        seen = ctx
        return ""
      },
    })
    await internals(made).execute({}, context({ extra: { directory: "/other", worktree: "/other-repo" } }))
    expect(seen).toMatchObject({ directory: "/other", worktree: "/other-repo" })
  })
})
