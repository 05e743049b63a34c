// One session's calls as the loop guard keeps them: in the order they were made, not the order they
// finished. Calls of one session run side by side (an agent's parallel calls, an MCP client's 16 in
// flight), and finish in any order: three calls of one input can finish one after another while other
// calls, made between them, still run. "In a row" is about what the caller asked, in the order it asked.
import type { Recorded } from "./recorded-call.ts"

/**
 * The recorded calls of a session, oldest made first, and the calls made and not yet recorded.
 * 1. `begin` gives a call its place (a ticket) when it is made; `record` puts its answer there, among
 *    the calls made before and after it; `end` lets go of a place whose call leaves no answer (refused,
 *    interrupted).
 * 2. `before(ticket)` is what a call's judgement looks at: the recorded calls made before it, back to
 *    the newest one still running (a call with no answer yet breaks any run of same answers).
 * 3. A call recorded without a ticket (a session's calls replayed from the journal, a test) is placed
 *    after everything made so far.
 */
export class CallHistory {
  readonly records: Recorded[] = []
  readonly #tickets: number[] = []
  /** The calls made and not recorded or ended: their places, and their call ids. */
  readonly #running = new Map<number, string | undefined>()
  #next = 0

  /** 1. A call is made (`callID`, when it has one): its place. */
  begin(callID?: string): number {
    const ticket = this.#next++
    this.#running.set(ticket, callID)
    return ticket
  }

  /** 1. A call made with `ticket` leaves no answer. */
  end(ticket: number): void {
    this.#running.delete(ticket)
  }

  /** Calls made and not recorded or ended. */
  get running(): number {
    return this.#running.size
  }

  /** 1. and 3. Records a call's answer in its place; returns the index it took. */
  record(record: Recorded, ticket?: number): number {
    const place = ticket ?? this.#next++
    if (ticket !== undefined) this.#running.delete(ticket)
    let index = this.records.length
    while (index > 0 && this.#tickets[index - 1]! > place) index--
    this.records.splice(index, 0, record)
    this.#tickets.splice(index, 0, place)
    return index
  }

  /** Drops the oldest records beyond `keep`. */
  trim(keep: number): void {
    const extra = this.records.length - keep
    if (extra <= 0) return
    this.records.splice(0, extra)
    this.#tickets.splice(0, extra)
  }

  /**
   * 2. The recorded calls a call made with `ticket` follows (all of them without a ticket). A call made on
   * behalf of another (`parentCallID`, a batch's child) does not stop at its parent, running all along.
   */
  before(ticket?: number, parentCallID?: string): readonly Recorded[] {
    if (ticket === undefined) return this.records
    let runningBefore = -1
    for (const [other, callID] of this.#running) {
      if (other < ticket && other > runningBefore && (parentCallID === undefined || callID !== parentCallID))
        runningBefore = other
    }
    let end = this.records.length
    while (end > 0 && this.#tickets[end - 1]! >= ticket) end--
    let start = end
    while (start > 0 && this.#tickets[start - 1]! > runningBefore) start--
    return start === 0 && end === this.records.length ? this.records : this.records.slice(start, end)
  }
}
