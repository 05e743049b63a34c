// How a call ends outside its own run: interrupted (its process died, or the caller stopped it), or
// refused a second time once finished. Kept apart from the journal, which records these endings.
import { advance, type ToolPart, type ToolState } from "./part.ts"

/** The error an interrupted call ends with (opencode's wording, so replay logic matches). */
export const ABORTED = "Tool execution aborted"

/**
 * The error of a call whose process died under it (start-up recovery): it starts like `ABORTED`, and
 * tells the model that the work may be half done and what to look at before going on.
 */
export const PROCESS_GONE =
  `${ABORTED}: the process running this call was killed or crashed before the call finished, so its ` +
  "result is unknown and it may have done part of its work. Before relying on it or running it again, " +
  "check what it touched: read the files it was writing or editing, look for processes it started."

/**
 * A call that has already finished was asked to move again. `part` is the recorded final part: a
 * resumed run uses it instead of running the side effect a second time.
 */
export class CallSettledError extends Error {
  override readonly name = "CallSettledError"
  readonly part: ToolPart
  constructor(part: ToolPart) {
    super(
      `Call ${part.callID} (${part.tool}) of session ${part.sessionID} has already finished ` +
        `(${part.state.status}); a finished call is never run or recorded twice`,
    )
    this.part = part
  }
}

/**
 * The part closed as interrupted: `error` with `ABORTED`, `metadata.interrupted: true` on top of the
 * metadata it had (partial output stays), `time.end` = now. Throws for a part already final.
 */
export function interrupt(part: ToolPart, now: number, error = ABORTED): ToolPart {
  const state = part.state
  const metadata = state.status === "running" ? state.metadata : undefined
  const start = state.status === "pending" ? now : state.time.start
  return advance(part, {
    status: "error",
    input: state.input,
    error,
    metadata: { ...metadata, interrupted: true },
    time: { start, end: now },
  })
}

export function isFinal(part: ToolPart): boolean {
  return part.state.status === "completed" || part.state.status === "error"
}

/**
 * A call the fleet closed as interrupted (`PROCESS_GONE`: its owner's lease had lapsed, journal.sweep())
 * whose run then finished after all: the record keeps what the fleet saw and told everyone (the call
 * stays `error`, interrupted), and the late result goes beside it, in `metadata.lateResult` with
 * `metadata.finishedAfterSweep: true`. Undefined for any other final part (finished once, aborted, or
 * already given its late result): that one refuses further steps.
 */
export function withLateResult(stored: ToolPart, late: ToolState): ToolPart | undefined {
  const state = stored.state
  if (state.status !== "error" || state.error !== PROCESS_GONE) return undefined
  if (state.metadata?.interrupted !== true || state.metadata.finishedAfterSweep === true) return undefined
  const { input: _input, ...result } = late
  return {
    ...stored,
    state: { ...state, metadata: { ...state.metadata, finishedAfterSweep: true, lateResult: result } },
  }
}
