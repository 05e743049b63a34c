// Recording: what is written to the journal for one call, and when it must be on disk.
//
// The rules, in the order a call meets them:
// 1. A call that already finished (same session and call id) is answered from its record and never
//    runs again (`fromRecord`).
// 2. `pending` (the call as requested, its input bounded for the journal) is handed over at once but
//    rides (`PartStep.rides`): it needs no commit of its own and joins the call's next step's commit
//    (or any other, within the group commit's DEFER_MS). A failed `pending` surfaces at the next step.
// 3. `running` is durable before the tool runs: a crash from then on leaves a record that the next
//    start closes as interrupted. The exception (`startRides`): a tool that declares itself read-only
//    has no side effect to write ahead of, so its start rides too, and a call costs one commit
//    (requested, started and finished together) where it cost two. A kill -9 while such a call runs
//    leaves, within DEFER_MS of its start, no record of it (what ran was a read: a client retrying
//    it repeats no side effect), and later its `running` record, which the next start closes as
//    interrupted; never a record that claims more than happened.
// 4. Progress (`ctx.metadata`) is recorded in order but waited for by nobody.
// 5. The final state is durable before `settle` resolves, so what the call stamped (a read) is too.
// 6. Another exception: a read-only call whose caller replies at once (`recordAfterReply`) waits for
//    none of its steps (`trailsReply`); they still queue the moment they happen and all of them ride
//    (`PartStep.trails`): calls in flight together share a commit, at the latest DEFER_MS later, and a
//    lone call's records commit once the process is quiet, while its caller reads the answer
//    (trailing-commits.ts decides). A kill -9 in that gap loses the record of a read that was
//    answered; running a read again is harmless, so a client's retry repeats no side effect.
// 7. Every step is published on the bus only once it committed, in order (`journalSink`).

import { storedInput, storedString } from "../../platform/store/input-bounds.ts"
import { advance, asInput, type ToolPart, type ToolState } from "../../platform/store/part.ts"
import type { Store } from "../../platform/store/store.ts"
import type { FilePart } from "../../platform/text/content.ts"
import { elide } from "../../platform/text/elide.ts"
import { ascending } from "../../platform/util/id.ts"
import type { Bus } from "../bus/bus.ts"
import type { MetadataUpdate } from "../tool/context.ts"
import type { ToolInternals } from "../tool/internal.ts"
import * as Message from "./messages.ts"
import { TrailingCommits } from "./trailing-commits.ts"
import type { CallRequest, ErrorKind, PartSink, PartStep, SettleDeps, Settlement } from "./types.ts"

/** A state nobody waits for before acting: it may ride with the call's next commit (rules 2 and 3). */
const RIDES: PartStep = { rides: true }
/** A trailing call's result: nobody waits for it at all (rule 6). */
const TRAILS: PartStep = { trails: true }

/** How a call ends in error: what the model reads, why, and whether the turn stops. */
export interface Failure {
  readonly error: string
  readonly kind: ErrorKind
  readonly metadata?: Record<string, unknown>
  /** A person's "no", no one to ask, or a refused loop: the turn stops. Default false. */
  readonly blocked?: boolean
}

/** The result of a call that completed, as it is recorded and returned. */
export interface Completion {
  readonly output: string
  readonly title: string
  readonly metadata: Record<string, unknown>
  readonly attachments: FilePart[]
  readonly structured: unknown
}

/** Rule 3's exception: whether the call's start may ride with its next step instead of preceding the run. */
export function startRides(tool: ToolInternals): boolean {
  return tool.annotations.readOnly === true
}

/** Rule 6: whether the call's record may trail its reply instead of preceding it. */
export function trailsReply(request: CallRequest, tool: ToolInternals): boolean {
  return request.recordAfterReply === true && tool.annotations.readOnly === true
}

/** Rule 1: the settlement a finished call already had, from its recorded part. */
export function fromRecord(part: ToolPart): Settlement {
  const { state } = part
  if (state.status === "completed") {
    return {
      status: "completed",
      title: state.title,
      output: state.output,
      metadata: state.metadata,
      attachments: state.attachments ?? [],
      part,
    }
  }
  if (state.status === "error") {
    return {
      status: "error",
      error: state.error,
      kind: "failure",
      blocked: false,
      metadata: state.metadata ?? {},
      part,
    }
  }
  throw new Error(
    `settled() returned call ${part.callID} in state ${state.status}; only finished calls are records.`,
  )
}

/** Moves one call's part forward and hands every state to the sink (rules 2 to 6 on settle's side). */
export class PartRecorder {
  #part: ToolPart
  #start = 0
  #progress: MetadataUpdate = {}
  readonly #sink: PartSink | undefined
  #writes: Promise<void> = Promise.resolve()
  /** Set by `trail()`: where a recording failure goes once nobody awaits it. */
  #trailing: ((error: unknown) => void) | undefined
  /** Set by `rideStart()`: `running` is handed over but not waited for (rule 3's exception). */
  #riding = false
  /** Told the final state as soon as the call settled (the loop guard's record). */
  #settled: ((state: ToolState) => void) | undefined

  constructor(request: CallRequest, sink: PartSink | undefined) {
    this.#sink = sink
    // The part carries the input as the journal keeps it (bounded); the tool gets the whole input.
    const whole = asInput(request.input)
    const input = storedInput(whole)
    const raw =
      typeof request.input === "string"
        ? storedString(request.input)
        : safeJson(input === whole ? request.input : input)
    this.#part = {
      id: request.partID ?? ascending("prt"),
      sessionID: request.sessionID,
      messageID: request.messageID,
      type: "tool",
      callID: request.callID,
      tool: request.tool,
      state: { status: "pending", input, raw },
    }
  }

  get title(): string | undefined {
    return this.#progress.title
  }

  get part(): ToolPart {
    return this.#part
  }

  /**
   * Rule 6: from now on the call waits for no recording: `running()` and the final state are handed
   * to the sink and the call goes on (an `ordered` sink, such as the journal, then commits them
   * together, after the result is out). A recording that fails goes to `report` (the result stands).
   * The states are still queued the moment they happen, all of them riding (only read-only calls
   * trail), so a call still running DEFER_MS after its start is on disk as running, and a kill -9
   * from then on leaves a record that the next start closes as interrupted; its result commits within
   * DEFER_MS of the reply (sooner when the process is quiet: trailing-commits.ts). Only a kill before
   * then can leave no record, and then what ran was a read: a client retrying it never repeats a
   * side effect.
   */
  trail(report: (error: unknown) => void): void {
    this.#trailing = report
  }

  /**
   * Rule 3's exception: `running()` hands the state over to ride with the call's next step (or another
   * commit within DEFER_MS) and does not wait for it; a failure to record it reaches the final state's
   * write, which is still awaited (rule 5) unless the call also trails its reply (rule 6).
   */
  rideStart(): void {
    this.#riding = true
  }

  /** Calls `listener` with the final state, the moment the call settles. */
  onSettled(listener: (state: ToolState) => void): void {
    this.#settled = listener
  }

  /** Rule 2. */
  pending(): Promise<void> {
    return this.#emit(RIDES)
  }

  /** Rule 3. */
  running(): Promise<void> {
    this.#start = Date.now()
    const rides = this.#riding || this.#trailing !== undefined
    const written = this.#move(
      { status: "running", input: this.#part.state.input, time: { start: this.#start } },
      rides ? RIDES : undefined,
    )
    if (!rides) return written
    // Its failure, if any, reaches the final state's write (they are chained) and is reported there.
    written.catch(() => {})
    return Promise.resolve()
  }

  /** Rule 4: live progress; keeps `time.start` (opencode resets it on every update). */
  progress(update: MetadataUpdate): void {
    if (this.#part.state.status !== "running") return
    this.#progress = {
      ...(update.title !== undefined || this.#progress.title !== undefined
        ? { title: update.title ?? this.#progress.title }
        : {}),
      ...(update.metadata !== undefined || this.#progress.metadata !== undefined
        ? { metadata: update.metadata ?? this.#progress.metadata }
        : {}),
    }
    void this.#move({
      status: "running",
      input: this.#part.state.input,
      ...this.#progress,
      time: { start: this.#start },
    }).catch(() => {})
  }

  /** Rule 5, for a call that ends in error; an error that echoes a huge value is shortened (elide.ts). */
  async fail({ error: message, kind, metadata, blocked = false }: Failure): Promise<Settlement> {
    const error = elide(message)
    const full = { ...(this.#progress.metadata ?? {}), ...(metadata ?? {}) }
    await this.#finish({
      status: "error",
      input: this.#part.state.input,
      error,
      metadata: full,
      time: this.#times(),
    })
    return { status: "error", error, kind, blocked, metadata: full, part: this.#part }
  }

  interrupted(): Promise<Settlement> {
    return this.fail({ error: Message.INTERRUPTED, kind: "interrupted", metadata: { interrupted: true } })
  }

  /** A throw that is neither a failure nor an interruption: recorded with its stack, then logged. */
  defect(error: unknown, tool: string, onDefect: SettleDeps["onDefect"]): Promise<Settlement> {
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error)
    const settled = this.fail({
      error: Message.defectMessage(tool, error),
      kind: "defect",
      metadata: { defect: true, stack },
    })
    void settled.then((result) => onDefect?.(error, result.part))
    return settled
  }

  /** Rule 5, for a call that completed. */
  async complete(result: Completion): Promise<Settlement> {
    await this.#finish({
      status: "completed",
      input: this.#part.state.input,
      output: result.output,
      title: result.title,
      metadata: result.metadata,
      time: this.#times(),
      ...(result.attachments.length ? { attachments: result.attachments } : {}),
    })
    return {
      status: "completed",
      title: result.title,
      output: result.output,
      metadata: result.metadata,
      attachments: result.attachments,
      ...(result.structured !== undefined ? { structured: result.structured } : {}),
      part: this.#part,
    }
  }

  #times(): { start: number; end: number } {
    const end = Date.now()
    return { start: this.#start || end, end }
  }

  async #finish(state: ToolState): Promise<void> {
    this.#settled?.(state)
    // A trailing call's result (rule 6) takes the call's earlier steps with it.
    const moved = this.#move(state, this.#trailing ? TRAILS : undefined)
    const written = moved.then(() => this.#writes)
    const report = this.#trailing
    if (report) written.catch(report)
    else await written
  }

  #move(state: ToolState, step?: PartStep): Promise<void> {
    this.#part = advance(this.#part, state)
    return this.#emit(step)
  }

  #emit(step?: PartStep): Promise<void> {
    if (!this.#sink) return Promise.resolve()
    const part = this.#part
    const sink = this.#sink
    if (sink.ordered) {
      // The sink queues in order itself; chaining only keeps every earlier state's failure in view.
      let written: Promise<void>
      try {
        written = Promise.resolve(sink(part, step))
      } catch (error) {
        written = Promise.reject(error)
      }
      this.#writes = Promise.all([this.#writes, written]).then(() => {})
      return this.#writes
    }
    // Serialised so the sink sees states in order even when it is async.
    this.#writes = this.#writes.then(() => sink(part, step))
    return this.#writes
  }
}

/**
 * The journal as a part sink (rules 2, 3, 5 and 7 on the store's side): every step of a call
 * (requested, started, progress, finished) is written to the journal's queue at once and published
 * (bus, then `also`) once it has committed, in order. A step that rides (`PartStep.rides`) is queued
 * deferred (`journal.requested(part, { defer: true })`): it commits with the next step queued without
 * it. The `pending` step alone is not waited for; every later step waits for all of its call's earlier
 * steps as well, so `started` still resolves only once the call's record is durable, and a failed
 * `requested` surfaces there. A read-only call's requested, started and finished share one commit,
 * made before its result is returned, or just after when it trails the reply (`PartRecorder.trail`).
 */
export function journalSink({ store, bus, also }: { store: Store; bus: Bus; also?: PartSink }): PartSink {
  const calls = new Map<string, { running: boolean; durable: Promise<unknown>; published: Promise<void> }>()
  const trailing = new TrailingCommits(
    () => store.journal.flush(),
    () => calls.size,
  )
  const write = (part: ToolPart, running: boolean, step: PartStep | undefined): Promise<unknown> => {
    const { status } = part.state
    // A trailing state rides too; `trailing` decides when it commits.
    const options = step?.rides || step?.trails ? { defer: true } : undefined
    if (status === "pending") trailing.arrived()
    if (status === "pending")
      return store.journal.requested(part, step?.fresh ? { ...options, fresh: true } : options)
    if (status === "running")
      return running ? store.journal.progress(part, options) : store.journal.started(part, options)
    return store.journal.finished(part, options)
  }
  // Ordered: every step is queued in the journal's group commit the moment it is handed over.
  const sink = (part: ToolPart, step?: PartStep) => {
    const call = calls.get(part.id) ?? {
      running: false,
      durable: Promise.resolve(),
      published: Promise.resolve(),
    }
    const written = write(part, call.running, step)
    if (part.state.status === "running") call.running = true
    call.durable = Promise.all([call.durable, written])
    call.published = Promise.all([call.published, call.durable, written]).then(([, , recorded]) => {
      // What the journal recorded, where that is not this step: a call the fleet swept while it ran
      // stays interrupted there (its progress dropped, its result kept beside: journal.finished()).
      const stored = recorded as ToolPart | undefined
      const shown = stored && stored.state !== part.state ? stored : part
      bus.publish("message.part.updated", { part: shown })
      return also?.(shown)
    })
    const final = part.state.status === "completed" || part.state.status === "error"
    if (final) calls.delete(part.id)
    else calls.set(part.id, call)
    if (step?.trails) trailing.trailed()
    if (part.state.status !== "pending") return call.published
    // Not awaited here: a failure reaches the call's next step through `durable`.
    call.published.catch(() => {})
  }
  return Object.assign(sink, { ordered: true })
}

/**
 * Publishes a part that is already in the journal (a call recovery closed as interrupted): told on
 * the bus and to `also`, never recorded again.
 */
export function announceRecorded({ bus, also }: { bus: Bus; also?: PartSink }): (part: ToolPart) => void {
  return (part) => {
    bus.publish("message.part.updated", { part })
    void Promise.resolve()
      .then(() => also?.(part))
      .catch(() => {})
  }
}

function safeJson(value: unknown): string {
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? "")
  } catch {
    return String(value)
  }
}
