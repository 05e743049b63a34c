// Anthropic's Messages API as a loopback stand-in: the first turn streams thinking (with its signature),
// redacted thinking, text and a tool_use; every later request must carry both thinking blocks back
// exactly, first in the assistant message with the tool_use, or it is refused as Anthropic refuses it.
import { type Answer, type Received, sse } from "./loopback.ts"

export const THINKING = "The user wants the notes: read notes.txt."
export const SIGNATURE = "EqQBCkgIBxABGAIiQAnthropicSignature/+tested=="
export const REDACTED = "EmwKAhgBEgy3redacted+thinking+data=="
export const TOOL_USE_ID = "toolu_01replay"

/** The assistant blocks that must come back, in this order, before the tool_use. */
export const REPLAYED_THINKING = [
  { type: "thinking", thinking: THINKING, signature: SIGNATURE },
  { type: "redacted_thinking", data: REDACTED },
]

/**
 * The stand-in's answer: a request with no assistant message yet gets thinking and a call of `tool`
 * with `input`; any other is checked, then answered with text.
 */
export function anthropicAnswer(tool: string, input: unknown): (request: Received) => Answer {
  return ({ body }) => {
    const messages = body.messages as any[]
    if (!messages.some((message) => message.role === "assistant")) return { events: callEvents(tool, input) }
    const problem = thinkingProblem(messages)
    if (problem) {
      return {
        status: 400,
        body: { type: "error", error: { type: "invalid_request_error", message: problem } },
      }
    }
    return { events: textEvents("The notes say to remember the milk.") }
  }
}

/** What Anthropic says when thinking blocks did not come back as they were sent (else undefined). */
function thinkingProblem(messages: any[]): string | undefined {
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue
    const content = Array.isArray(message.content) ? message.content : []
    if (!content.some((block: any) => block.type === "tool_use" && block.id === TOOL_USE_ID)) continue
    const sent = JSON.stringify(content.slice(0, 2))
    if (sent !== JSON.stringify(REPLAYED_THINKING)) {
      return `messages.${index}.content.0: when thinking is enabled, an assistant message with tool_use must start with the thinking blocks exactly as they were returned (thinking with its signature, redacted_thinking with its data); got ${sent}`
    }
  }
  return undefined
}

function start(): string {
  return sse(
    {
      type: "message_start",
      message: {
        id: "msg_01replay",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 20, output_tokens: 1 },
      },
    },
    "message_start",
  )
}

function block(index: number, content_block: unknown, deltas: unknown[] = []): string[] {
  return [
    sse({ type: "content_block_start", index, content_block }, "content_block_start"),
    ...deltas.map((delta) => sse({ type: "content_block_delta", index, delta }, "content_block_delta")),
    sse({ type: "content_block_stop", index }, "content_block_stop"),
  ]
}

function end(stop_reason: string): string[] {
  return [
    sse(
      { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 30 } },
      "message_delta",
    ),
    sse({ type: "message_stop" }, "message_stop"),
  ]
}

function callEvents(tool: string, input: unknown): string[] {
  const args = JSON.stringify(input)
  const half = Math.floor(args.length / 2)
  return [
    start(),
    ...block(0, { type: "thinking", thinking: "", signature: "" }, [
      { type: "thinking_delta", thinking: THINKING.slice(0, 10) },
      { type: "thinking_delta", thinking: THINKING.slice(10) },
      { type: "signature_delta", signature: SIGNATURE },
    ]),
    ...block(1, { type: "redacted_thinking", data: REDACTED }),
    ...block(2, { type: "text", text: "" }, [{ type: "text_delta", text: "Reading the notes." }]),
    ...block(3, { type: "tool_use", id: TOOL_USE_ID, name: tool, input: {} }, [
      { type: "input_json_delta", partial_json: args.slice(0, half) },
      { type: "input_json_delta", partial_json: args.slice(half) },
    ]),
    ...end("tool_use"),
  ]
}

function textEvents(text: string): string[] {
  return [
    start(),
    ...block(0, { type: "text", text: "" }, [{ type: "text_delta", text }]),
    ...end("end_turn"),
  ]
}
