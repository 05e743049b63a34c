import { describe, expect, it } from "vitest"
import {
  preferredModel,
  SAMPLING_MAX_TOKENS,
  type SamplingClient,
  type SamplingRequest,
  type SamplingResult,
  samplingModel,
  toSampling,
} from "./sampling-model.ts"
import type { ModelObject } from "./tools.ts"

type V4 = Extract<ModelObject, { specificationVersion: "v4" }>
type CallOptions = Parameters<V4["doStream"]>[0]

/** A client that answers with `reply` and keeps what it was asked. */
function client(reply: SamplingResult, tools = true): SamplingClient & { requests: SamplingRequest[] } {
  const requests: SamplingRequest[] = []
  return {
    requests,
    tools,
    name: "test-client",
    createMessage: async (request) => {
      requests.push(request)
      return reply
    },
  }
}

async function parts(model: ModelObject, call: CallOptions): Promise<unknown[]> {
  const { stream } = await (model as V4).doStream(call)
  const out: unknown[] = []
  for await (const part of stream as unknown as AsyncIterable<unknown>) out.push(part)
  return out
}

const prompt: CallOptions["prompt"] = [
  { role: "system", content: "You are a subagent." },
  { role: "user", content: [{ type: "text", text: "Read a.txt" }] },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Reading it." },
      { type: "tool-call", toolCallId: "c1", toolName: "read", input: { filePath: "a.txt" } },
      { type: "tool-call", toolCallId: "c2", toolName: "grep", input: { pattern: "x" } },
    ],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "read",
        output: { type: "text", value: "1: hello" },
      },
      {
        type: "tool-result",
        toolCallId: "c2",
        toolName: "grep",
        output: { type: "error-text", value: "bad regex" },
      },
    ],
  },
]

describe("toSampling", () => {
  it("puts system text aside, calls as tool_use and results as a user message of tool_result blocks", () => {
    expect(toSampling(prompt, true)).toEqual({
      system: "You are a subagent.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Read a.txt" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading it." },
            { type: "tool_use", id: "c1", name: "read", input: { filePath: "a.txt" } },
            { type: "tool_use", id: "c2", name: "grep", input: { pattern: "x" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolUseId: "c1", content: [{ type: "text", text: "1: hello" }] },
            {
              type: "tool_result",
              toolUseId: "c2",
              content: [{ type: "text", text: "bad regex" }],
              isError: true,
            },
          ],
        },
      ],
    })
  })

  it("for a client without tools, writes calls and results as text", () => {
    const { messages } = toSampling(prompt, false)
    expect(messages[1]!.content).toEqual([
      { type: "text", text: "Reading it." },
      { type: "text", text: '[called read with {"filePath":"a.txt"}]' },
      { type: "text", text: '[called grep with {"pattern":"x"}]' },
    ])
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "[read returned: 1: hello]" },
        { type: "text", text: "[grep failed: bad regex]" },
      ],
    })
  })
})

describe("samplingModel", () => {
  const tools: CallOptions["tools"] = [
    { type: "function", name: "read", description: "Reads a file.", inputSchema: { type: "object" } },
  ]

  it("sends one sampling request (tools, choice, the default maxTokens) and streams the answer back", async () => {
    const sampler = client({
      model: "claude-x",
      stopReason: "toolUse",
      role: "assistant",
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "u1", name: "read", input: { filePath: "a.txt" } },
      ],
    })
    const model = samplingModel(sampler)
    expect(model).toMatchObject({ provider: "mcp-sampling", modelId: "test-client" })
    const streamed = await parts(model, { prompt, tools, toolChoice: { type: "auto" } })
    expect(sampler.requests[0]).toMatchObject({
      systemPrompt: "You are a subagent.",
      maxTokens: SAMPLING_MAX_TOKENS,
      includeContext: "none",
      tools: [{ name: "read", description: "Reads a file.", inputSchema: { type: "object" } }],
      toolChoice: { mode: "auto" },
    })
    expect(streamed).toEqual([
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "text-0" },
      { type: "text-delta", id: "text-0", delta: "Let me look." },
      { type: "text-end", id: "text-0" },
      { type: "tool-call", toolCallId: "u1", toolName: "read", input: '{"filePath":"a.txt"}' },
      expect.objectContaining({ type: "finish", finishReason: { unified: "tool-calls", raw: "toolUse" } }),
    ])
  })

  it("sends no tools to a client that does not take them; maps the stop reasons", async () => {
    const sampler = client(
      { model: "m", stopReason: "maxTokens", content: { type: "text", text: "cut" } },
      false,
    )
    const streamed = await parts(samplingModel(sampler), { prompt, tools, maxOutputTokens: 100 })
    expect(sampler.requests[0]).not.toHaveProperty("tools")
    expect(sampler.requests[0]?.maxTokens).toBe(100)
    expect(streamed.at(-1)).toMatchObject({ finishReason: { unified: "length" } })
  })

  it("asks for an agent's own model as a preference of the same client; another model is not a sampling one", async () => {
    const sampler = client({ model: "m", content: { type: "text", text: "ok" } })
    const current = { model: samplingModel(sampler), providerID: "mcp-sampling", modelID: "client" }
    const preferred = preferredModel(current, "anthropic/claude-haiku-4-5")!
    await parts(preferred.model, { prompt })
    expect(sampler.requests[0]?.modelPreferences).toEqual({ hints: [{ name: "claude-haiku-4-5" }] })
    expect(preferredModel({ ...current, model: {} as ModelObject }, "openai/gpt-5")).toBeUndefined()
  })
})
