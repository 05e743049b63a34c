import type {
  AssistantModelMessage,
  ModelMessage,
  ProviderMetadata,
  ToolCallPart,
  ToolModelMessage,
  ToolResultPart,
} from "ai"
import type { MessageRecord } from "../../platform/store/messages.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import { modelOutput } from "./model-output.ts"
import type { StepContent } from "./step-log.ts"

/** What a call that never finished is replayed as (opencode's wording). */
export const INTERRUPTED_RESULT = "[Tool execution was interrupted]"

type ToolResultOutput = ToolResultPart["output"]

/**
 * The result the model sees for a stored part, so every call in the history has one.
 * - completed → its output (with images where the provider takes them);
 * - interrupted with partial output (`metadata.output`, the shell's) → that output, marked interrupted;
 * - any other error → the error text;
 * - still pending or running (the process died, or the call never finished) → an interrupted error.
 */
export function replayOutput(part: ToolPart, options: { readonly media?: boolean } = {}): ToolResultOutput {
  const { state } = part
  switch (state.status) {
    case "completed":
      return modelOutput(
        { output: state.output, ...(state.attachments ? { attachments: state.attachments } : {}) },
        { media: options.media ?? false },
      )
    case "error": {
      const partial = state.metadata?.output
      if (state.metadata?.interrupted === true && typeof partial === "string") {
        return { type: "text", value: `${partial}\n\n${INTERRUPTED_RESULT}` }
      }
      return { type: "error-text", value: state.error }
    }
    default:
      return { type: "error-text", value: INTERRUPTED_RESULT }
  }
}

/**
 * The call as the model made it, from the stored input: a value too large for the journal comes back
 * as its head and a note giving its full size and sha256 (`storedInput`), so the model sees that the
 * call carried more than the history shows.
 */
export function replayCall(part: ToolPart, providerMetadata?: ProviderMetadata): ToolCallPart {
  return {
    type: "tool-call",
    toolCallId: part.callID,
    toolName: part.tool,
    input: part.state.input,
    // Gemini's thought signature, OpenAI's item id: the provider checks them on the next turn.
    ...(providerMetadata ? { providerOptions: providerMetadata } : {}),
  }
}

export function replayResult(part: ToolPart, options: { readonly media?: boolean } = {}): ToolResultPart {
  return {
    type: "tool-result",
    toolCallId: part.callID,
    toolName: part.tool,
    output: replayOutput(part, options),
  }
}

/** A step as stored: its text and calls, and its items with the provider's metadata when it had any. */
export interface StoredStep {
  readonly text?: string
  readonly calls: readonly { callID: string; tool: string }[]
  readonly content?: readonly StepContent[]
}

/**
 * One model step replayed: the assistant's content, then one tool message with a result for every
 * call. A step stored with `content` is replayed in the order the provider sent it, reasoning and the
 * provider's metadata included (signatures, thought signatures, reasoning items: providers refuse a
 * turn whose history lost them); otherwise its text, then its calls. Calls listed without a stored part
 * (the process died before recording them) get an interrupted result too.
 */
export function replayStep(
  step: StoredStep,
  parts: ReadonlyMap<string, ToolPart> | readonly ToolPart[],
  options: { readonly media?: boolean; readonly sessionID?: string; readonly messageID?: string } = {},
): ModelMessage[] {
  const byCall =
    parts instanceof Map ? parts : new Map((parts as readonly ToolPart[]).map((p) => [p.callID, p]))
  const content: Exclude<AssistantModelMessage["content"], string> = []
  const results: ToolResultPart[] = []
  const tools = new Map(step.calls.map((call) => [call.callID, call.tool]))
  const replayed = new Set<string>()
  const addCall = (call: { callID: string; tool: string }, metadata?: ProviderMetadata) => {
    if (replayed.has(call.callID)) return
    replayed.add(call.callID)
    const part = byCall.get(call.callID) ?? openPart(call, options)
    content.push(replayCall(part, metadata))
    results.push(replayResult(part, options))
  }
  if (step.content) {
    for (const item of step.content) {
      const providerOptions = item.providerMetadata ? { providerOptions: item.providerMetadata } : {}
      if (item.type === "tool-call") {
        const tool = tools.get(item.callID) ?? byCall.get(item.callID)?.tool
        if (tool !== undefined) addCall({ callID: item.callID, tool }, item.providerMetadata)
      } else if (item.type === "reasoning") {
        // Kept even when empty: Anthropic's redacted thinking has no text, only its data.
        content.push({ type: "reasoning", text: item.text, ...providerOptions })
      } else if (item.text || item.providerMetadata) {
        content.push({ type: "text", text: item.text, ...providerOptions })
      }
    }
  } else if (step.text) {
    content.push({ type: "text", text: step.text })
  }
  for (const call of step.calls) addCall(call)
  if (!content.length) return []
  const messages: ModelMessage[] = [{ role: "assistant", content }]
  if (results.length) messages.push({ role: "tool", content: results } satisfies ToolModelMessage)
  return messages
}

/** Parts of one message replayed as a single step (calls in the order given). */
export function replayParts(
  parts: readonly ToolPart[],
  options: { readonly media?: boolean } = {},
): ModelMessage[] {
  return replayStep(
    { calls: parts.map((part) => ({ callID: part.callID, tool: part.tool })) },
    parts,
    options,
  )
}

/** How the agent loop stores its messages (`store.messages` data). */
export type StoredMessage =
  | { readonly role: "user"; readonly text: string }
  | {
      readonly role: "assistant"
      readonly steps: readonly (StoredStep & { readonly text: string })[]
    }

/**
 * A session's history as model messages: the stored user and assistant messages in order, each
 * assistant step followed by the results of its calls, taken from the stored parts.
 */
export function replaySession(
  messages: readonly MessageRecord[],
  parts: readonly ToolPart[],
  options: { readonly media?: boolean } = {},
): ModelMessage[] {
  const byCall = new Map(parts.map((part) => [part.callID, part]))
  const out: ModelMessage[] = []
  for (const record of messages) {
    const data = record.data as Partial<StoredMessage> | null
    if (record.role === "user" && data && "text" in data && typeof data.text === "string") {
      out.push({ role: "user", content: data.text })
    } else if (record.role === "assistant" && data && "steps" in data && Array.isArray(data.steps)) {
      for (const step of data.steps) {
        out.push(
          ...replayStep(step, byCall, { ...options, sessionID: record.sessionID, messageID: record.id }),
        )
      }
    }
  }
  return out
}

function openPart(
  call: { callID: string; tool: string },
  options: { readonly sessionID?: string; readonly messageID?: string },
): ToolPart {
  return {
    id: "",
    sessionID: options.sessionID ?? "",
    messageID: options.messageID ?? "",
    type: "tool",
    callID: call.callID,
    tool: call.tool,
    state: { status: "pending", input: {}, raw: "" },
  }
}
