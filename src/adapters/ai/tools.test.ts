import type { ToolExecutionOptions } from "ai"
import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { internals } from "../../compose/internals.ts"
import type { Context } from "../../runtime/tool/context.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { scripted, step, text } from "./fixtures/mock-model.ts"
import { type TestBelt, testBelt } from "./fixtures/toolbelt.ts"
import { type ToolOutput, toAISDKTools } from "./tools.ts"

let belt: TestBelt | undefined
afterEach(async () => {
  await belt?.close()
  belt = undefined
})

const ids = { sessionID: "ses_tools", messageID: "msg_tools" }
const mock = { providerID: "mock", modelID: "mock-model" }

function sdkOptions(
  toolCallId: string,
  extra: Partial<ToolExecutionOptions<any>> = {},
): ToolExecutionOptions<any> {
  return { toolCallId, messages: [], context: undefined, ...extra }
}

async function execute(
  tools: Awaited<ReturnType<typeof toAISDKTools>>,
  name: string,
  input: unknown,
  callID: string,
) {
  return (await tools.tools[name]!.execute!(input, sdkOptions(callID))) as ToolOutput
}

describe("toAISDKTools", () => {
  it("offers every visible tool sorted by name, with invalid in the set but never active", async () => {
    belt = await testBelt()
    const ai = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, model: mock })
    expect(ai.activeTools).toEqual([...ai.activeTools].sort())
    expect(ai.activeTools).toEqual(expect.arrayContaining(["echo", "fail", "picture", "read", "slow"]))
    expect(ai.activeTools).not.toContain("invalid")
    expect(Object.keys(ai.tools)).toEqual([...ai.activeTools, "invalid"].sort())
    expect(ai.turn.has("invalid")).toBe(true)
    expect(ai.turn.get("echo")).toBe(internals(belt.toolbelt).registry.resolve("echo")!.identity)
  })

  it("leaves out tools the agent's permission rules hide", async () => {
    belt = await testBelt({ config: { permission: { fail: "deny" } } })
    const ai = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, model: mock })
    expect(ai.activeTools).not.toContain("fail")
    expect(ai.tools.fail).toBeUndefined()
  })

  it("sends each schema through the provider's transforms", async () => {
    belt = await testBelt()
    belt.toolbelt.register({
      level: Tool.make({
        description: "Takes a numeric enum.",
        input: z.object({ level: z.literal([1, 2]), note: z.string().nullable().optional() }),
        execute: ({ level }) => String(level),
      }),
    })
    const gemini = await toAISDKTools({
      toolbelt: belt.toolbelt,
      ...ids,
      model: { providerID: "google", modelID: "gemini-2.5-pro" },
    })
    const plain = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, model: mock })
    const jsonOf = (ai: Awaited<ReturnType<typeof toAISDKTools>>) =>
      JSON.stringify((ai.tools.level!.inputSchema as { jsonSchema: unknown }).jsonSchema)
    expect(jsonOf(gemini)).toContain('"level":{"type":"string","enum":["1","2"]}')
    expect(jsonOf(plain)).toContain('"level":{"type":"number","enum":[1,2]}')
    // Both normalised: an optional property needs no null.
    expect(jsonOf(gemini)).toContain('"note":{"type":"string"}')
    expect(jsonOf(plain)).toContain('"note":{"type":"string"}')
  })

  it("uses OpenAI strict mode when asked, and turns the model's nulls back into omissions", async () => {
    belt = await testBelt()
    const ai = await toAISDKTools({
      toolbelt: belt.toolbelt,
      ...ids,
      model: { providerID: "openai", modelID: "gpt-5" },
      strict: true,
    })
    expect(ai.tools.echo!.strict).toBe(true)
    const schema = (ai.tools.echo!.inputSchema as { jsonSchema: Record<string, unknown> }).jsonSchema
    expect(schema).toMatchObject({ additionalProperties: false, required: ["text", "times"] })
    const output = await execute(ai, "echo", { text: "hi", times: null }, "c-strict")
    expect(output.output).toBe("hi")
    // Strict mode is for OpenAI only.
    const other = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, model: mock, strict: true })
    expect(other.tools.echo!.strict).toBeUndefined()
  })

  it("executes through settlement with the SDK call's id, abort signal and messages", async () => {
    belt = await testBelt()
    let seen: Context | undefined
    belt.toolbelt.register({
      probe: Tool.make({
        description: "Records its context.",
        input: z.object({}),
        execute: (_input, ctx) => {
          seen = ctx
          return "ok"
        },
      }),
    })
    const ai = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, agent: "plan", model: mock })
    const abort = new AbortController()
    const messages = [{ role: "user" as const, content: "hello" }]
    const output = await ai.tools.probe!.execute!(
      {},
      sdkOptions("call-42", { abortSignal: abort.signal, messages }),
    )
    expect(output).toEqual({ title: "probe", output: "ok", metadata: { truncated: false }, attachments: [] })
    expect(seen).toMatchObject({
      sessionID: "ses_tools",
      messageID: "msg_tools",
      agent: "plan",
      callID: "call-42",
    })
    expect(seen!.messages).toEqual(messages)
    expect(seen!.abort.aborted).toBe(false)
    const part = internals(belt.toolbelt).store.parts.get("ses_tools", "call-42")!
    expect(part).toMatchObject({
      tool: "probe",
      messageID: "msg_tools",
      state: { status: "completed", output: "ok" },
    })
    expect(ai.calls.get("call-42")).toMatchObject({ phase: "settled", partID: part.id })

    // The SDK's abort signal reaches a call while it runs (after it ends the call no longer follows it).
    belt.toolbelt.register({
      waits: Tool.make({
        description: "Ends when aborted.",
        input: z.object({}),
        execute: (_input, ctx) =>
          new Promise<string>((resolve) => {
            seen = ctx
            ctx.abort.addEventListener("abort", () => resolve("aborted"), { once: true })
          }),
      }),
    })
    const ai2 = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, agent: "plan", model: mock })
    const running = ai2.tools.waits!.execute!(
      {},
      sdkOptions("call-43", { abortSignal: abort.signal, messages }),
    )
    await vi.waitFor(() => expect(seen?.callID).toBe("call-43"))
    abort.abort()
    await expect(Promise.resolve(running).catch(() => "rejected")).resolves.toBeDefined()
    expect(seen!.abort.aborted).toBe(true)
  })

  it("a failed call throws its message for the model; a stale registration is refused unrun", async () => {
    belt = await testBelt()
    const ai = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, model: mock })
    await expect(execute(ai, "fail", {}, "c-fail")).rejects.toThrow("this tool always fails")
    const error = await execute(ai, "fail", {}, "c-fail-2").catch((caught: unknown) => caught)
    expect(String(error)).toBe("this tool always fails")

    belt.toolbelt.register({
      echo: Tool.make({
        description: "A newer echo.",
        input: z.object({ text: z.string() }),
        execute: ({ text }) => text,
      }),
    })
    await expect(execute(ai, "echo", { text: "x" }, "c-stale")).rejects.toThrow(/removed or replaced/)
    expect(belt.runs.echo).toBeUndefined()
  })

  it("a rejected permission blocks the turn (stopWhen)", async () => {
    belt = await testBelt({ config: { permission: { custom: "ask" } }, decide: async () => "reject" })
    belt.toolbelt.register({
      asks: Tool.make({
        description: "Asks first.",
        input: z.object({}),
        execute: async (_input, ctx) => {
          await ctx.ask({ permission: "custom", patterns: ["x"] })
          return "allowed"
        },
      }),
    })
    const ai = await toAISDKTools({
      toolbelt: belt.toolbelt,
      ...ids,
      model: mock,
    })
    expect(ai.stopWhen({ steps: [] } as never)).toBe(false)
    await expect(execute(ai, "asks", {}, "c-ask")).rejects.toThrow(/rejected permission/)
    expect(ai.calls.blocked).toMatch(/rejected permission/)
    expect(ai.stopWhen({ steps: [] } as never)).toBe(true)
  })

  it("gives images to providers that take them in tool results, a note to the others", async () => {
    belt = await testBelt()
    for (const [providerID, expected] of [
      ["anthropic", "content"],
      ["openai-compatible", "text"],
    ] as const) {
      const ai = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, model: { providerID, modelID: "m" } })
      const picture = ai.tools.picture!
      const output = await picture.execute!({}, sdkOptions(`c-pic-${providerID}`))
      const model = await picture.toModelOutput!({ toolCallId: "x", input: {}, output })
      expect(model.type).toBe(expected)
      if (model.type === "content") {
        expect(model.value).toEqual([
          { type: "text", text: "a picture" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } },
        ])
      } else {
        expect(model).toMatchObject({
          value: expect.stringContaining("1 image attachment(s) (image/png) not shown"),
        })
      }
    }
  })

  it("wrap() offers the model the active tools only", async () => {
    belt = await testBelt()
    const ai = await toAISDKTools({ toolbelt: belt.toolbelt, ...ids, model: mock })
    const model = scripted([step(text("hi"))])
    const { streamText } = await import("ai")
    await streamText({ model: ai.wrap(model), tools: ai.tools, prompt: "x" }).consumeStream()
    const sent = model.doStreamCalls[0]!.tools!.map((tool) => tool.name)
    expect(sent).toEqual(ai.activeTools)
  })
})
