// OpenAI's Responses API as a loopback stand-in: the first turn streams a reasoning item (its summary,
// and its encrypted content when the request asked for it) and a function call; every later request
// must send the reasoning item back right before that call (by reference when the response was stored,
// whole with its encrypted content when `store` is false), or it is refused as OpenAI refuses it.
import { type Answer, type Received, sse } from "./loopback.ts"

export const REASONING_ID = "rs_01replay"
export const SUMMARY = "The user wants the notes: read notes.txt."
export const ENCRYPTED = "gAAAAABreplay-encrypted-reasoning-content=="
export const CALL_ID = "call_01replay"

/** The input item that must come right before the function call. */
export function replayedReasoning(store: boolean): unknown {
  return store
    ? { type: "item_reference", id: REASONING_ID }
    : {
        type: "reasoning",
        id: REASONING_ID,
        encrypted_content: ENCRYPTED,
        summary: [{ type: "summary_text", text: SUMMARY }],
      }
}

/**
 * The stand-in's answer: a request whose input has no function call yet gets reasoning and a call of
 * `tool` with `input`; any other is checked, then answered with text.
 */
export function openaiAnswer(tool: string, input: unknown): (request: Received) => Answer {
  return ({ body }) => {
    const items = body.input as any[]
    const call = items.findIndex((item) => item.type === "function_call" && item.call_id === CALL_ID)
    if (call < 0) {
      const encrypted = (body.include ?? []).includes("reasoning.encrypted_content")
      return { events: callEvents(tool, input, encrypted ? ENCRYPTED : null) }
    }
    const expected = JSON.stringify(replayedReasoning(body.store !== false))
    const sent = JSON.stringify(items[call - 1] ?? null)
    if (sent !== expected) {
      return {
        status: 400,
        body: {
          error: {
            message: `Item '${CALL_ID}' of type 'function_call' was provided without its required 'reasoning' item '${REASONING_ID}' (expected ${expected} before it, got ${sent}).`,
            type: "invalid_request_error",
            param: "input",
            code: null,
          },
        },
      }
    }
    return { events: textEvents("The notes say to remember the milk.") }
  }
}

const created = (id: string) =>
  sse({ type: "response.created", response: { id, created_at: 1_700_000_000, model: "gpt-5" } })
const completed = () =>
  sse({ type: "response.completed", response: { usage: { input_tokens: 20, output_tokens: 30 } } })

function callEvents(tool: string, input: unknown, encrypted: string | null): string[] {
  const args = JSON.stringify(input)
  const reasoning = { type: "reasoning", id: REASONING_ID, encrypted_content: encrypted, summary: [] }
  const call = { type: "function_call", id: "fc_01replay", call_id: CALL_ID, name: tool }
  const summary = { item_id: REASONING_ID, output_index: 0, summary_index: 0 }
  return [
    created("resp_01"),
    sse({ type: "response.output_item.added", output_index: 0, item: reasoning }),
    sse({ type: "response.reasoning_summary_part.added", ...summary }),
    sse({ type: "response.reasoning_summary_text.delta", ...summary, delta: SUMMARY }),
    sse({ type: "response.reasoning_summary_part.done", ...summary }),
    sse({ type: "response.output_item.done", output_index: 0, item: reasoning }),
    sse({ type: "response.output_item.added", output_index: 1, item: { ...call, arguments: "" } }),
    sse({ type: "response.function_call_arguments.delta", item_id: call.id, output_index: 1, delta: args }),
    sse({
      type: "response.function_call_arguments.done",
      item_id: call.id,
      output_index: 1,
      arguments: args,
    }),
    sse({
      type: "response.output_item.done",
      output_index: 1,
      item: { ...call, arguments: args, status: "completed" },
    }),
    completed(),
  ]
}

function textEvents(text: string): string[] {
  const message = { type: "message", id: "msg_02replay" }
  return [
    created("resp_02"),
    sse({ type: "response.output_item.added", output_index: 0, item: message }),
    sse({ type: "response.output_text.delta", item_id: message.id, output_index: 0, delta: text }),
    sse({ type: "response.output_item.done", output_index: 0, item: message }),
    completed(),
  ]
}
