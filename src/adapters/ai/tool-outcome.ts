// What a `tool-result`, `tool-error` or `tool-output-denied` stream part means for a call that never
// reached settlement (provider-executed tools, calls the SDK refused): the final state the processor
// records for it.
import {
  advance,
  asInput,
  type CompletedState,
  type ToolPart,
  type ToolState,
} from "../../platform/store/part.ts"
import type { FilePart } from "../../platform/text/content.ts"

/** How such a call ended: an error message, or what a completed state holds besides input and time. */
export type ToolOutcome = { error: string } | Omit<CompletedState, "status" | "input" | "time">

/** A completed outcome from a tool result: toolbelt's `{title, output, metadata, attachments}`, or any value. */
export function resultOutcome(output: unknown): Omit<CompletedState, "status" | "input" | "time"> {
  if (
    typeof output === "object" &&
    output !== null &&
    typeof (output as { output?: unknown }).output === "string"
  ) {
    const value = output as { output: string; title?: unknown; metadata?: unknown; attachments?: unknown }
    return {
      output: value.output,
      title: typeof value.title === "string" ? value.title : "",
      metadata:
        typeof value.metadata === "object" && value.metadata !== null
          ? (value.metadata as Record<string, unknown>)
          : {},
      ...(Array.isArray(value.attachments) && value.attachments.length
        ? { attachments: value.attachments as FilePart[] }
        : {}),
    }
  }
  return {
    output: typeof output === "string" ? output : (JSON.stringify(output) ?? ""),
    title: "",
    metadata: {},
  }
}

/** The message of a `tool-error` part's error, whatever it is. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === "string" ? error : (JSON.stringify(error) ?? String(error))
}

export interface ClosedPartOptions {
  /** The call's part as it stands (not final). */
  readonly base: ToolPart
  /** The input the stream part carries; used while the call's part is still pending. */
  readonly input: unknown
  readonly outcome: ToolOutcome
  readonly now: number
}

/**
 * The call's part in its final state: `error` or `completed` with the outcome; it started when it began
 * running, else now; its input is the stream part's while the call was pending, else the recorded one.
 */
export function closedPart({ base, input, outcome, now }: ClosedPartOptions): ToolPart {
  const time = { start: base.state.status === "running" ? base.state.time.start : now, end: now }
  const inputRecord =
    base.state.status === "pending" && input !== undefined ? asInput(input) : base.state.input
  const state: ToolState =
    "error" in outcome
      ? { status: "error", input: inputRecord, error: outcome.error, time }
      : { status: "completed", input: inputRecord, ...outcome, time }
  return advance(base, state)
}
