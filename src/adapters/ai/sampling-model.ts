// An AI SDK language model whose calls go to an MCP client as `sampling/createMessage` requests: the
// model behind a subagent started over MCP is the client's. Sampling has no streaming, so each call
// is one request, streamed back as one piece.

import type { LanguageModel } from "ai"
import type { ModelObject } from "./tools.ts"

/** The provider id of sampling models. */
export const SAMPLING_PROVIDER = "mcp-sampling"

/** How many tokens a sampled reply may have when the caller does not say (the request must say). */
export const SAMPLING_MAX_TOKENS = 8192

type V4 = Extract<Exclude<LanguageModel, string>, { specificationVersion: "v4" }>
type CallOptions = Parameters<V4["doGenerate"]>[0]
type GenerateResult = Awaited<ReturnType<V4["doGenerate"]>>
type StreamPart = Awaited<ReturnType<V4["doStream"]>>["stream"] extends ReadableStream<infer T> ? T : never
type Message = CallOptions["prompt"][number]

/** One content block of a sampling message (MCP's `SamplingMessageContentBlock`). */
export type SamplingBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string }
  | {
      readonly type: "tool_use"
      readonly id: string
      readonly name: string
      readonly input: Readonly<Record<string, unknown>>
    }
  | {
      readonly type: "tool_result"
      readonly toolUseId: string
      readonly content: readonly (
        | { type: "text"; text: string }
        | { type: "image"; data: string; mimeType: string }
      )[]
      readonly isError?: boolean
    }

export interface SamplingMessage {
  readonly role: "user" | "assistant"
  readonly content: readonly SamplingBlock[]
}

/** The parameters of `sampling/createMessage`. */
export interface SamplingRequest {
  readonly messages: readonly SamplingMessage[]
  readonly systemPrompt?: string
  readonly maxTokens: number
  readonly temperature?: number
  readonly stopSequences?: readonly string[]
  readonly includeContext: "none"
  readonly modelPreferences?: { readonly hints: readonly { readonly name: string }[] }
  readonly tools?: readonly {
    readonly name: string
    readonly description?: string
    readonly inputSchema: unknown
  }[]
  readonly toolChoice?: { readonly mode: "auto" | "required" | "none" }
}

/** What the client answered. */
export interface SamplingResult {
  readonly model?: string
  readonly stopReason?: string
  readonly role?: string
  readonly content: SamplingBlock | readonly SamplingBlock[] | { readonly type: string }
}

/** An MCP client that samples: how to send it a request, and what it supports. */
export interface SamplingClient {
  /** Sends `sampling/createMessage` and resolves with the client's answer. */
  createMessage(request: SamplingRequest, options: { signal?: AbortSignal }): Promise<SamplingResult>
  /** Whether the client takes tools in a sampling request (`sampling.tools`, MCP 2025-11-25). */
  readonly tools: boolean
  /** The client's name (the model id toolbelt reports). */
  readonly name: string
}

/**
 * A language model over MCP sampling.
 * 1. The prompt becomes sampling messages: system text → `systemPrompt`; the assistant's calls →
 *    `tool_use` blocks; tool results → a user message of `tool_result` blocks. A client without tool
 *    support gets no tools, and a history's calls and results as text.
 * 2. The function tools and the tool choice go along when the client takes them; `maxTokens` is the
 *    caller's or 8192; a model hint when the agent names a model.
 * 3. The answer: text and `tool_use` blocks become text and tool calls; the stop reason the finish.
 */
export function samplingModel(client: SamplingClient, options: { hint?: string } = {}): ModelObject {
  const generate = async (call: CallOptions): Promise<GenerateResult> => {
    // 1 and 2. The request.
    const { system, messages } = toSampling(call.prompt, client.tools)
    const tools = client.tools
      ? (call.tools ?? []).flatMap((tool) =>
          tool.type === "function"
            ? [
                {
                  name: tool.name,
                  ...(tool.description ? { description: tool.description } : {}),
                  inputSchema: tool.inputSchema,
                },
              ]
            : [],
        )
      : []
    const choice = call.toolChoice?.type
    const request: SamplingRequest = {
      messages,
      ...(system ? { systemPrompt: system } : {}),
      maxTokens: call.maxOutputTokens ?? SAMPLING_MAX_TOKENS,
      ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
      ...(call.stopSequences?.length ? { stopSequences: call.stopSequences } : {}),
      includeContext: "none",
      ...(options.hint ? { modelPreferences: { hints: [{ name: options.hint }] } } : {}),
      ...(tools.length
        ? {
            tools,
            toolChoice: { mode: choice === "required" || choice === "none" ? choice : "auto" },
          }
        : {}),
    }
    const answer = await client.createMessage(request, call.abortSignal ? { signal: call.abortSignal } : {})

    // 3. The answer.
    const blocks = (Array.isArray(answer.content) ? answer.content : [answer.content]) as SamplingBlock[]
    const content: GenerateResult["content"] = []
    for (const block of blocks) {
      if (block.type === "text") content.push({ type: "text", text: block.text })
      else if (block.type === "tool_use")
        content.push({
          type: "tool-call",
          toolCallId: block.id,
          toolName: block.name,
          input: JSON.stringify(block.input),
        })
    }
    const calls = content.some((part) => part.type === "tool-call")
    return {
      content,
      finishReason: { unified: finishOf(answer.stopReason, calls), raw: answer.stopReason },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
      ...(answer.model ? { response: { modelId: answer.model } } : {}),
      warnings: [],
    } as GenerateResult
  }

  const model: V4 = {
    specificationVersion: "v4",
    provider: SAMPLING_PROVIDER,
    modelId: client.name,
    supportedUrls: {},
    doGenerate: generate,
    async doStream(call) {
      const result = await generate(call)
      const parts: StreamPart[] = [{ type: "stream-start", warnings: [] }]
      result.content.forEach((part, index) => {
        if (part.type === "text") {
          const id = `text-${index}`
          parts.push(
            { type: "text-start", id },
            { type: "text-delta", id, delta: part.text },
            { type: "text-end", id },
          )
        } else if (part.type === "tool-call") parts.push(part)
      })
      parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage })
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  }
  samplingClients.set(model, client)
  return model
}

/** The client behind each sampling model (to ask it for another model). */
const samplingClients = new WeakMap<object, SamplingClient>()

/**
 * The same client asked to prefer `spec`'s model, when `current` is a sampling model: over MCP the
 * client owns the models, so an agent's own model is a preference it may honour. Undefined otherwise.
 */
export function preferredModel(
  current: { readonly model: ModelObject; readonly providerID: string; readonly modelID: string },
  spec: string,
): { model: ModelObject; providerID: string; modelID: string } | undefined {
  const client = samplingClients.get(current.model)
  if (!client) return undefined
  const hint = spec.slice(spec.indexOf("/") + 1)
  return { model: samplingModel(client, { hint }), providerID: SAMPLING_PROVIDER, modelID: client.name }
}

/** The AI SDK prompt as sampling messages and a system prompt. */
export function toSampling(
  prompt: readonly Message[],
  tools: boolean,
): { system: string; messages: SamplingMessage[] } {
  const system: string[] = []
  const messages: SamplingMessage[] = []
  const push = (role: "user" | "assistant", blocks: SamplingBlock[]) => {
    if (!blocks.length) return
    // Tool results stand alone in their message; other blocks join a message of the same role.
    const last = messages.at(-1)
    const results = blocks.some((block) => block.type === "tool_result")
    const lastResults = last?.content.some((block) => block.type === "tool_result")
    if (last && last.role === role && results === lastResults)
      messages[messages.length - 1] = { role, content: [...last.content, ...blocks] }
    else messages.push({ role, content: blocks })
  }
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        system.push(message.content)
        break
      case "user":
        push(
          "user",
          message.content.flatMap((part): SamplingBlock[] =>
            part.type === "text" ? [{ type: "text", text: part.text }] : fileBlocks(part),
          ),
        )
        break
      case "assistant": {
        const blocks: SamplingBlock[] = []
        const results: SamplingBlock[] = []
        for (const part of message.content) {
          if (part.type === "text" && part.text) blocks.push({ type: "text", text: part.text })
          else if (part.type === "tool-call")
            blocks.push(
              tools
                ? { type: "tool_use", id: part.toolCallId, name: part.toolName, input: asObject(part.input) }
                : { type: "text", text: `[called ${part.toolName} with ${JSON.stringify(part.input)}]` },
            )
          else if (part.type === "tool-result") results.push(resultBlock(part, tools))
        }
        push("assistant", blocks)
        push("user", results)
        break
      }
      case "tool":
        push(
          "user",
          message.content.flatMap((part) => (part.type === "tool-result" ? [resultBlock(part, tools)] : [])),
        )
        break
    }
  }
  return { system: system.join("\n\n"), messages }
}

type ToolResultPart = Extract<Extract<Message, { role: "tool" }>["content"][number], { type: "tool-result" }>

type ResultContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string }

function resultBlock(part: ToolResultPart, tools: boolean): SamplingBlock {
  const output = part.output
  let content: ResultContent[]
  let isError = false
  switch (output.type) {
    case "text":
      content = [{ type: "text", text: output.value }]
      break
    case "error-text":
      isError = true
      content = [{ type: "text", text: output.value }]
      break
    case "json":
    case "error-json":
      isError = output.type === "error-json"
      content = [{ type: "text", text: JSON.stringify(output.value) }]
      break
    case "execution-denied":
      isError = true
      content = [{ type: "text", text: output.reason ?? "The call was denied." }]
      break
    case "content":
      content = output.value.flatMap((item): ResultContent[] =>
        item.type === "text"
          ? [{ type: "text" as const, text: item.text }]
          : item.type === "file" && item.data.type === "data" && typeof item.data.data === "string"
            ? [{ type: "image" as const, data: item.data.data, mimeType: item.mediaType }]
            : [],
      )
      break
    default:
      content = []
  }
  if (tools)
    return { type: "tool_result", toolUseId: part.toolCallId, content, ...(isError ? { isError } : {}) }
  const text = content.map((item) => (item.type === "text" ? item.text : "[image]")).join("\n")
  return { type: "text", text: `[${part.toolName} ${isError ? "failed" : "returned"}: ${text}]` }
}

function fileBlocks(part: { type: string; mediaType?: string; data?: unknown }): SamplingBlock[] {
  const data = part.data as { type?: string; data?: unknown } | undefined
  if (part.mediaType?.startsWith("image/") && data?.type === "data" && typeof data.data === "string")
    return [{ type: "image", data: data.data, mimeType: part.mediaType }]
  return []
}

function asObject(input: unknown): Record<string, unknown> {
  if (typeof input === "string") {
    try {
      const parsed = JSON.parse(input) as unknown
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
        return parsed as Record<string, unknown>
    } catch {
      // Not JSON: passed on as it came.
    }
    return { input }
  }
  return input && typeof input === "object" && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { input }
}

function finishOf(
  stopReason: string | undefined,
  calls: boolean,
): "stop" | "length" | "tool-calls" | "other" {
  if (calls || stopReason === "toolUse") return "tool-calls"
  if (stopReason === "maxTokens") return "length"
  if (stopReason === undefined || stopReason === "endTurn" || stopReason === "stopSequence") return "stop"
  return "other"
}
