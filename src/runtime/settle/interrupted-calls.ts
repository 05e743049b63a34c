// Calls whose process died under them, as the next call of their session reports them.

import type { ToolPart } from "../../platform/store/part.ts"
import type { Settlement } from "./types.ts"

/** How much of an interrupted call's input the report shows: enough to recognise the call. */
const INPUT_CHARS = 200

/** One interrupted call as reported in `metadata.interrupted_calls`. */
export interface InterruptedCall {
  readonly callID: string
  readonly tool: string
  /** The call's input as JSON, cut to `INPUT_CHARS` characters. */
  readonly input: string
  readonly error: string
  /** Epoch ms: when the call started, and when recovery closed it. */
  readonly time: { readonly start: number; readonly end: number }
}

export function describeInterrupted(part: ToolPart): InterruptedCall {
  const state = part.state
  const json = JSON.stringify(state.input) ?? "{}"
  const time = state.status === "pending" || state.status === "running" ? undefined : state.time
  return {
    callID: part.callID,
    tool: part.tool,
    input: json.length > INPUT_CHARS ? `${json.slice(0, INPUT_CHARS)}…` : json,
    error: state.status === "error" ? state.error : "",
    time: { start: time?.start ?? 0, end: time?.end ?? 0 },
  }
}

/**
 * The settlement with the session's newly found interrupted calls in `metadata.interrupted_calls`
 * (added beside the tool's metadata, so every surface's contract keeps its keys). The recorded part is
 * left as it was: the report belongs to this answer, not to the call's record.
 */
export function withInterruptedCalls(settlement: Settlement, parts: readonly ToolPart[]): Settlement {
  if (parts.length === 0) return settlement
  return {
    ...settlement,
    metadata: { ...settlement.metadata, interrupted_calls: parts.map(describeInterrupted) },
  }
}
