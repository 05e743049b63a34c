import { describe, expect, it } from "vitest"
import { z } from "zod"
import * as Api from "../../runtime/tool/index.ts"
import { metadataUpdate } from "./context.ts"
import { Tool, tool } from "./opencode-plugin.ts"

/** A call context that records what the tool did with it. */
function recordingContext() {
  const updates: unknown[] = []
  const asks: unknown[] = []
  const ctx: Api.Context = {
    sessionID: "s",
    messageID: "m",
    agent: "build",
    callID: "c",
    abort: new AbortController().signal,
    extra: { directory: "/p", worktree: "/w" },
    messages: [],
    metadata: (update) => {
      updates.push(update)
    },
    ask: async (input) => {
      asks.push(input)
    },
  }
  return { ctx, updates, asks }
}

describe("@opencode-ai/plugin as toolbelt answers it", () => {
  it("exports opencode's tool() with zod as tool.schema, and the tool API as Tool", () => {
    expect(tool.schema).toBe(z)
    expect(Tool.make).toBe(Api.make)
    expect(Tool.isToolFailure).toBe(Api.isToolFailure)
  })

  it("defines a tool in the spec's shape: its context takes the spec's ask and metadata calls", async () => {
    const info = Tool.define("my_custom_tool", async () => ({
      description: "Does something custom",
      parameters: z.object({ input: z.string() }),
      async execute(params: { input: string }, ctx) {
        await ctx.ask({ permission: "my_custom_tool", patterns: [params.input] })
        await ctx.metadata({ progress: 50 })
        return {
          title: "done",
          output: `${params.input} in ${ctx.directory}`,
          metadata: { status: "success" },
        }
      },
    }))
    expect(Api.isInfo(info)).toBe(true)
    const def = await info.init()
    const { ctx, updates, asks } = recordingContext()
    expect(await def.execute({ input: "x" }, ctx)).toEqual({
      title: "done",
      output: "x in /p",
      metadata: { status: "success" },
    })
    expect(asks).toEqual([{ permission: "my_custom_tool", patterns: ["x"] }])
    expect(updates).toEqual([{ metadata: { progress: 50 } }])
  })

  it("takes a string result, and reports a malformed definition when it is initialised", async () => {
    const plain = Tool.define("plain", {
      description: "d",
      parameters: z.object({}),
      execute: async () => "ok",
    })
    const { ctx } = recordingContext()
    expect(await (await plain.init()).execute({}, ctx)).toEqual({ output: "ok" })
    const bad = Tool.define("bad", async () => ({
      description: "d",
      parameters: { a: "string" } as never,
      execute: async () => "",
    }))
    await expect(bad.init()).rejects.toThrow(
      "bad: parameters must be a Zod schema (z.object({...})), got an object",
    )
  })
})

describe("metadataUpdate", () => {
  it.each([
    [
      { title: "t", metadata: { a: 1 } },
      { title: "t", metadata: { a: 1 } },
    ],
    [{ progress: 50 }, { metadata: { progress: 50 } }],
    [
      { title: "t", metadata: { a: 1 }, progress: 50 },
      { title: "t", metadata: { a: 1, progress: 50 } },
    ],
    [{ title: "t" }, { title: "t" }],
    [undefined, {}],
    ["text", {}],
  ])("%j → %j", (input, expected) => {
    expect(metadataUpdate(input)).toEqual(expected)
  })
})
