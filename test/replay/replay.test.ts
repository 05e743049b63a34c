// Replay keeps what providers require back: a session whose first turn got reasoning and a tool call
// with the provider's signatures is continued by a new toolbelt instance (the history rebuilt from the
// store, not memory), through the real agent loop and each provider's real AI SDK package, against a
// loopback stand-in of the provider's wire API that refuses (400) a history that lost them.
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import type { ProviderMetadata } from "ai"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runTurn } from "../../src/adapters/ai/loop.ts"
import type { ModelObject } from "../../src/adapters/ai/tools.ts"
import { createToolbelt, type Toolbelt } from "../../src/compose/toolbelt.ts"
import { anthropicAnswer, anthropicScript, type Move, replayedThinking, TOOL_USE_ID } from "./anthropic.ts"
import { CALL_ID as GEMINI_CALL_ID, googleAnswer, THOUGHT_SIGNATURE } from "./google.ts"
import { type Answer, type Received, type StandIn, standIn } from "./loopback.ts"
import { CALL_ID, openaiAnswer, replayedReasoning } from "./openai.ts"

let project: string
let server: StandIn | undefined
const open: Toolbelt[] = []

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-replay-"))
  await writeFile(join(project, "notes.txt"), "remember the milk\n")
})

afterEach(async () => {
  for (const toolbelt of open.splice(0)) await toolbelt.close()
  await server?.close()
  server = undefined
  await rm(project, { recursive: true, force: true })
})

/** A toolbelt on the project and its data dir: each call is a new instance over the same store. */
async function instance(): Promise<Toolbelt> {
  const toolbelt = await createToolbelt({
    directory: project,
    dataDir: join(project, ".data"),
    config: {},
    sweep: false,
    mcp: false,
    editDiagnostics: false,
  })
  open.push(toolbelt)
  return toolbelt
}

/**
 * One turn in a new instance, closed once the turn ends: a turn after another has its history from the
 * store alone. The stand-in refused none of its requests.
 */
async function turn(input: Omit<Parameters<typeof runTurn>[0], "toolbelt">) {
  const toolbelt = await instance()
  try {
    const ended = await runTurn({ toolbelt, ...input })
    expect(server!.refused).toEqual([])
    return ended
  } finally {
    open.splice(open.indexOf(toolbelt), 1)
    await toolbelt.close()
  }
}

/** The provider's model, on the stand-in. */
const modelOf = (provider: Provider, origin: string) => ({
  model: provider.model(origin),
  providerID: provider.providerID,
  modelID: provider.modelID,
})

interface Provider {
  readonly providerID: string
  readonly modelID: string
  readonly answer: (request: Received, index: number) => Answer
  readonly model: (origin: string) => ModelObject
  readonly providerOptions?: ProviderMetadata
  /** What of the replayed history the provider checks, from a request body. */
  readonly replayed: (body: any) => unknown
  /** What `replayed` must be. */
  readonly expected: unknown
}

const read = { filePath: "notes.txt" }
const providers: Record<string, Provider> = {
  "Anthropic (thinking with its signature, redacted thinking)": {
    providerID: "anthropic",
    modelID: "claude-sonnet-4-5",
    answer: anthropicAnswer("read", read),
    model: (origin) => createAnthropic({ apiKey: "test", baseURL: `${origin}/v1` })("claude-sonnet-4-5"),
    providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } },
    replayed: (body) =>
      body.messages.find((message: any) =>
        message.content.some?.((block: any) => block.type === "tool_use" && block.id === TOOL_USE_ID),
      )?.content,
    expected: [
      ...replayedThinking(),
      { type: "text", text: "Reading the notes." },
      { type: "tool_use", id: TOOL_USE_ID, name: "read", input: read },
    ],
  },
  "Google (the function call's thoughtSignature)": {
    providerID: "google",
    modelID: "gemini-3-pro-preview",
    answer: googleAnswer("read", read),
    model: (origin) =>
      createGoogleGenerativeAI({ apiKey: "test", baseURL: `${origin}/v1beta` })("gemini-3-pro-preview"),
    replayed: (body) =>
      body.contents
        .filter((content: any) => content.role === "model")
        .flatMap((content: any) => content.parts)
        .filter((part: any) => part.functionCall),
    expected: [
      { functionCall: { id: GEMINI_CALL_ID, name: "read", args: read }, thoughtSignature: THOUGHT_SIGNATURE },
    ],
  },
  "OpenAI Responses, store: false (the reasoning item with its encrypted content)": {
    providerID: "openai",
    modelID: "gpt-5",
    answer: openaiAnswer("read", read),
    model: (origin) => createOpenAI({ apiKey: "test", baseURL: `${origin}/v1` }).responses("gpt-5"),
    providerOptions: { openai: { store: false } },
    replayed: (body) => {
      const index = body.input.findIndex((item: any) => item.call_id === CALL_ID)
      return body.input.slice(index - 1, index + 1)
    },
    expected: [
      replayedReasoning(false),
      { type: "function_call", call_id: CALL_ID, name: "read", arguments: JSON.stringify(read) },
    ],
  },
  "OpenAI Responses, stored (the reasoning item by reference)": {
    providerID: "openai",
    modelID: "gpt-5",
    answer: openaiAnswer("read", read),
    model: (origin) => createOpenAI({ apiKey: "test", baseURL: `${origin}/v1` }).responses("gpt-5"),
    replayed: (body) => {
      const index = body.input.findIndex((item: any) => item.call_id === CALL_ID)
      return body.input.slice(index - 1, index + 1)
    },
    expected: [
      replayedReasoning(true),
      { type: "function_call", call_id: CALL_ID, name: "read", arguments: JSON.stringify(read) },
    ],
  },
}

describe("a session continued by a new toolbelt sends the provider's reasoning and signatures back", () => {
  it.each(Object.entries(providers))("%s", async (_name, provider) => {
    server = await standIn(provider.answer)
    const model = modelOf(provider, server.origin)
    const options = provider.providerOptions ? { providerOptions: provider.providerOptions } : {}

    // Turn 1: reasoning and a call, the call runs, the model answers (its history from the SDK's memory).
    const one = await turn({ model, prompt: "What do my notes say?", ...options })
    expect(one).toMatchObject({ status: "finished", text: "The notes say to remember the milk." })
    expect(one.parts).toMatchObject([
      { tool: "read", state: { status: "completed", output: expect.stringContaining("remember the milk") } },
    ])

    // Turn 2, in another instance: the history comes from the store alone.
    const two = await turn({ model, sessionID: one.sessionID, prompt: "Say it again.", ...options })
    expect(two).toMatchObject({ status: "finished", text: "The notes say to remember the milk." })
    expect(server.requests).toHaveLength(3)
    const [, fromMemory, fromStore] = server.requests.map((request) => provider.replayed(request.body))
    expect(fromStore).toEqual(provider.expected)
    // What the store gave back is what the SDK itself sent from memory within the first turn.
    expect(fromStore).toEqual(fromMemory)
  })
})

describe("switching agents replays the turn so far from the store", () => {
  it("plan_enter mid-turn: the plan agent's first request carries Anthropic's thinking and signature", async () => {
    const anthropic = providers["Anthropic (thinking with its signature, redacted thinking)"]!
    server = await standIn(anthropicAnswer("plan_enter", {}))
    const planned = await turn({
      model: modelOf(anthropic, server.origin),
      prompt: "Plan the change first.",
      ...(anthropic.providerOptions ? { providerOptions: anthropic.providerOptions } : {}),
    })
    expect(planned).toMatchObject({ status: "finished", agent: "plan" })
    expect(planned.parts).toMatchObject([{ tool: "plan_enter", state: { status: "completed" } }])
    // Two model calls: the build agent's, then the plan agent's on the history rebuilt from the store.
    expect(server.requests).toHaveLength(2)
    expect(anthropic.replayed(server.requests[1]!.body)).toEqual([
      ...replayedThinking(),
      { type: "text", text: "Reading the notes." },
      { type: "tool_use", id: TOOL_USE_ID, name: "plan_enter", input: {} },
    ])
  })
})

describe("a subagent resumed through task in a new toolbelt", () => {
  it("gets its own thinking and signatures back from the store (Anthropic), and the parent's too", async () => {
    const anthropic = providers["Anthropic (thinking with its signature, redacted thinking)"]!
    const subagent = (body: any) => JSON.stringify(body.system ?? "").includes("You are a subagent")
    let child = ""
    const task = (id: string, input: Record<string, unknown>): Move => ({
      call: { id, name: "task", input: { subagent_type: "general", ...input } },
    })
    // The parent's and the subagent's requests, in the order they come.
    const script: Move[] = [
      task("toolu_task1", { description: "read the notes", prompt: "Read notes.txt: what does it say?" }),
      { call: { id: "toolu_child_read", name: "read", input: read } },
      { text: "It says to remember the milk." },
      { text: "The subagent read the notes." },
      // Run 2: the parent resumes the subagent by its task_id.
      { text: "(set below)" },
      { text: "I read notes.txt: it says to remember the milk." },
      { text: "The subagent confirmed." },
    ]
    server = await standIn(
      anthropicScript((_request, index) =>
        index === 4
          ? task("toolu_task2", { description: "ask again", prompt: "What did you read?", task_id: child })
          : script[index]!,
      ),
    )
    const model = modelOf(anthropic, server.origin)
    const options = { providerOptions: anthropic.providerOptions! }

    const one = await turn({ model, prompt: "What do my notes say? Ask a subagent.", ...options })
    expect(one).toMatchObject({ status: "finished", text: "The subagent read the notes." })
    const taskCall = one.parts.find((part) => part.tool === "task")
    child = taskCall?.state.status === "completed" ? String(taskCall.state.metadata.sessionId) : ""
    expect(child).toMatch(/^ses_/)

    const two = await turn({ model, sessionID: one.sessionID, prompt: "Ask it again.", ...options })
    expect(two).toMatchObject({ status: "finished", text: "The subagent confirmed." })
    expect(server.requests.map((request) => subagent(request.body))).toEqual([
      false,
      true,
      true,
      false,
      false,
      true,
      false,
    ])
    // The subagents ran on the parent's model with its provider options (thinking on).
    expect(server.requests.every((request) => request.body.thinking?.type === "enabled")).toBe(true)
    // The resumed subagent's history, rebuilt from the store by the second instance.
    const resumed = server.requests[5]!.body.messages.find((message: any) =>
      message.content.some?.((block: any) => block.id === "toolu_child_read"),
    )
    expect(resumed.content).toEqual([
      ...replayedThinking("toolu_child_read"),
      { type: "text", text: "Reading the notes." },
      { type: "tool_use", id: "toolu_child_read", name: "read", input: read },
    ])
  })
})
