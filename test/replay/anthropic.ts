// Anthropic's Messages API as a loopback stand-in. A call it makes streams thinking (with a signature
// of that call's own), redacted thinking, text and the tool_use; every request is first checked: each
// assistant message holding one of its tool_use blocks must start with that call's two thinking blocks
// exactly as they were sent, or it is refused (400) as Anthropic refuses it with thinking enabled.
import { type Answer, type Received, sse } from "./loopback.ts"

export const THINKING = "The user wants the notes: read notes.txt."
export const REDACTED = "EmwKAhgBEgy3redacted+thinking+data=="
export const TOOL_USE_ID = "toolu_01replay"

/** The signature the stand-in gives the thinking before the call `id`. */
export const signatureOf = (id: string) => `EqQBCkgIBxABGAIiQ+${id}+signature==`

/** The assistant blocks that must come back, in this order, before the tool_use `id`. */
export function replayedThinking(id = TOOL_USE_ID): unknown[] {
  return [
    { type: "thinking", thinking: THINKING, signature: signatureOf(id) },
    { type: "redacted_thinking", data: REDACTED },
  ]
}

/** What the stand-in does next: make a call (with thinking before it), or answer in text. */
export type Move =
  | { readonly call: { readonly id: string; readonly name: string; readonly input: unknown } }
  | { readonly text: string }

/** A stand-in's answers: each request checked, then the script's move for it. */
export function anthropicScript(
  next: (request: Received, index: number) => Move,
): (request: Received, index: number) => Answer {
  const issued = new Set<string>()
  return (request, index) => {
    const problem = thinkingProblem(request.body.messages, issued)
    if (problem) {
      return {
        status: 400,
        body: { type: "error", error: { type: "invalid_request_error", message: problem } },
      }
    }
    const move = next(request, index)
    if ("text" in move) return { events: textEvents(move.text) }
    issued.add(move.call.id)
    return { events: callEvents(move.call) }
  }
}

/** A single call of `tool` with `input` for a request without an assistant message, else text. */
export function anthropicAnswer(tool: string, input: unknown): (request: Received, index: number) => Answer {
  return anthropicScript(({ body }) =>
    (body.messages as any[]).some((message) => message.role === "assistant")
      ? { text: "The notes say to remember the milk." }
      : { call: { id: TOOL_USE_ID, name: tool, input } },
  )
}

/** What Anthropic says when thinking blocks did not come back as they were sent (else undefined). */
function thinkingProblem(messages: any[], issued: ReadonlySet<string>): string | undefined {
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue
    const call = message.content.find((block: any) => block.type === "tool_use" && issued.has(block.id))
    if (!call) continue
    const sent = JSON.stringify(message.content.slice(0, 2))
    if (sent !== JSON.stringify(replayedThinking(call.id))) {
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

function callEvents(call: { id: string; name: string; input: unknown }): string[] {
  const args = JSON.stringify(call.input)
  const half = Math.floor(args.length / 2)
  return [
    start(),
    ...block(0, { type: "thinking", thinking: "", signature: "" }, [
      { type: "thinking_delta", thinking: THINKING.slice(0, 10) },
      { type: "thinking_delta", thinking: THINKING.slice(10) },
      { type: "signature_delta", signature: signatureOf(call.id) },
    ]),
    ...block(1, { type: "redacted_thinking", data: REDACTED }),
    ...block(2, { type: "text", text: "" }, [{ type: "text_delta", text: "Reading the notes." }]),
    ...block(3, { type: "tool_use", id: call.id, name: call.name, input: {} }, [
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
