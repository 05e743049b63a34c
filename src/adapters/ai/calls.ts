import type { ToolPart } from "../../platform/store/part.ts"
import { ascending } from "../../platform/util/id.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"

/**
 * Who writes a call's part right now:
 * - `streaming`: the model is still sending the call; the stream processor owns the pending part.
 * - `dispatched`: `execute` handed the call to settlement, which records every state from here on.
 * - `settled`: settlement returned; the part is final.
 * - `failed`: settlement threw (its record may be unfinished); the processor closes the part.
 */
export type CallPhase = "streaming" | "dispatched" | "settled" | "failed"

export interface CallEntry {
  readonly callID: string
  /** The id of the call's one part: chosen by whoever saw the call first, passed to settlement. */
  readonly partID: string
  /** The tool name the part is recorded under (the model's name, its case repaired). */
  readonly tool: string
  phase: CallPhase
  /** The processor's pending part (before dispatch), with the raw input streamed so far. */
  part?: ToolPart
  /** Resolves when settlement has recorded the final part (never rejects). */
  settled?: Promise<Settlement | undefined>
  settlement?: Settlement
}

/**
 * The calls of one assistant message, shared by the AI SDK tools (`execute`) and the stream
 * processor, so each call has exactly one part and exactly one writer at a time: the processor
 * before dispatch, settlement after it. The processor never writes a dispatched call again, except to
 * close it as interrupted when settlement did not finish in time after the stream ended.
 */
export class Calls {
  readonly #entries = new Map<string, CallEntry>()
  #blocked: string | undefined

  /** The reason the turn must stop (a rejected permission, a denied doom loop), once one happened. */
  get blocked(): string | undefined {
    return this.#blocked
  }

  block(reason: string): void {
    this.#blocked ??= reason
  }

  get(callID: string): CallEntry | undefined {
    return this.#entries.get(callID)
  }

  /** The processor saw the call start streaming: its entry (created if new). */
  open(callID: string, tool: string): CallEntry {
    let entry = this.#entries.get(callID)
    if (!entry) {
      entry = { callID, partID: ascending("prt"), tool, phase: "streaming" }
      this.#entries.set(callID, entry)
    }
    return entry
  }

  /**
   * `execute` hands the call to settlement: from now on only settlement writes its part. `run` gets
   * the part id to continue; its promise is returned as is and also kept (never rejecting) on the entry.
   */
  dispatch(
    callID: string,
    tool: string,
    run: (entry: CallEntry) => Promise<Settlement>,
  ): Promise<Settlement> {
    const entry = this.open(callID, tool)
    entry.phase = "dispatched"
    const running = run(entry)
    entry.settled = running.then(
      (settlement) => {
        entry.phase = "settled"
        entry.settlement = settlement
        entry.part = settlement.part
        return settlement
      },
      () => {
        entry.phase = "failed"
        return undefined
      },
    )
    return running
  }

  /** Calls handed to settlement that have not settled yet. */
  inFlight(): CallEntry[] {
    return [...this.#entries.values()].filter((entry) => entry.phase === "dispatched")
  }

  /** Every call, in the order it was first seen. */
  all(): CallEntry[] {
    return [...this.#entries.values()]
  }
}
