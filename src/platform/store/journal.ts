import { monotonicMs } from "../util/clock.ts"
import { CallSettledError, interrupt, isFinal, PROCESS_GONE, withLateResult } from "./call-outcome.ts"
import { CallParts, callKey } from "./call-parts.ts"
import type { GroupCommit } from "./group-commit.ts"
import { JournalAppends } from "./journal-appends.ts"
import { entryData, type JournalKind, lateEntryData } from "./journal-entry.ts"
import {
  type AskRow,
  type EntryRow,
  entryOfRow,
  type JournalEntry,
  type Recovery,
  type StepOptions,
  type Swept,
} from "./journal-shapes.ts"
import type { Owners } from "./owners.ts"
import { advance, IllegalTransitionError, type ToolPart, type ToolState } from "./part.ts"
import type { PartRows } from "./parts.ts"
import type { PermissionAsked, PermissionReply } from "./record-shapes.ts"
import type { Database, Statement } from "./sqlite.ts"

/**
 * How long a session found with no interrupted calls to report is taken at its word: the runtime asks
 * on every call, and the read was a twentieth of a served call's CPU. This store's own sweeps and
 * recovery are seen at once; another process's within this time.
 */
export const INTERRUPTED_RECHECK_MS = 1000

export { ABORTED, CallSettledError, interrupt, isFinal, PROCESS_GONE } from "./call-outcome.ts"

export type { JournalKind } from "./journal-entry.ts"
export type { JournalEntry, Recovery, StepOptions, Swept } from "./journal-shapes.ts"

/**
 * Every tool call, recorded as it moves: requested → (asked → decided) → started → progress… →
 * finished. Each step writes the part row and appends a journal entry in ONE transaction, so after
 * a crash the two always agree.
 *
 * Steps are group-committed (group-commit.ts): a step's promise resolves once the transaction
 * holding it has committed, with the connection's durability (by default `synchronous=NORMAL`: the
 * step survives a SIGKILL or crash of the process; see `Synchronous` in sqlite.ts). Await `started()`
 * before running the side effect and `finished()` before handing the result on; a step nothing waits
 * on (a call's request, a read-only call's start) may be `defer`red to ride with the next. Steps issued in the
 * same turn of the event loop (calls running in parallel) share one commit; the steps of one call
 * must be awaited in order.
 *
 * Rules that make a resumed run safe:
 * - a part only moves forward (`advance()`); a backward move throws `IllegalTransitionError`, and so
 *   does starting a call that is already running (its side effect may have begun);
 * - once a call is finished, any further step for it throws `CallSettledError` carrying the recorded
 *   part, and `settled()` returns it, so a finished side effect is never executed twice;
 * - `recover()` closes calls whose owner died as interrupted; it never re-runs them; `sweep()` does the
 *   same for owners whose lease lapsed, and should such a call finish after all, its late result is
 *   recorded beside the interruption, never instead of it.
 */
export class Journal {
  readonly #db: Database
  readonly #rows: PartRows
  readonly #owners: Owners
  readonly #group: GroupCommit
  readonly #now: () => number
  readonly #append: JournalAppends
  readonly #insertAsk: Statement
  readonly #getAsk: Statement
  readonly #deleteAsk: Statement
  readonly #adoptAsk: Statement
  readonly #asks: Statement
  readonly #asksInSession: Statement
  readonly #asksOf: Statement
  readonly #dropQuestions: Statement
  readonly #entries: Statement
  readonly #entriesOfCall: Statement
  readonly #noteInterrupted: Statement
  readonly #interruptedIn: Statement
  readonly #forgetInterrupted: Statement
  /** Each call's part within a batch: read once, its row written once (call-parts.ts). */
  readonly #parts: CallParts
  /**
   * The calls with steps queued and not yet committed, and how many: `settled()` commits the queue
   * first only for such a call. Flushing for every new call would commit the steps other calls in
   * flight queued, one commit per arriving call instead of one per batch.
   */
  readonly #queued = new Map<string, number>()
  /** Sessions `takeInterrupted` found nothing for, and when (`monotonicMs()`). */
  readonly #nothingInterrupted = new Map<string, number>()

  constructor(
    db: Database,
    rows: PartRows,
    owners: Owners,
    group: GroupCommit,
    now: () => number = Date.now,
  ) {
    this.#db = db
    this.#rows = rows
    this.#owners = owners
    this.#group = group
    this.#now = now
    this.#parts = new CallParts(rows, group, owners)
    this.#append = new JournalAppends(db, group)
    this.#insertAsk = db.prepare(
      "INSERT INTO pending_ask (id, session_id, call_id, data, owner, time) VALUES (?, ?, ?, ?, ?, ?)",
    )
    this.#getAsk = db.prepare("SELECT * FROM pending_ask WHERE id = ?")
    this.#deleteAsk = db.prepare("DELETE FROM pending_ask WHERE id = ?")
    this.#adoptAsk = db.prepare("UPDATE pending_ask SET owner = ? WHERE id = ?")
    this.#asks = db.prepare("SELECT * FROM pending_ask ORDER BY time, id")
    this.#asksInSession = db.prepare("SELECT * FROM pending_ask WHERE session_id = ? ORDER BY time, id")
    this.#asksOf = db.prepare("SELECT * FROM pending_ask WHERE owner = ?")
    this.#dropQuestions = db.prepare("DELETE FROM pending_question WHERE owner = ? RETURNING id, session_id")
    this.#entries = db.prepare("SELECT * FROM journal WHERE session_id = ? ORDER BY seq")
    this.#entriesOfCall = db.prepare(
      "SELECT * FROM journal WHERE session_id = ? AND call_id = ? ORDER BY seq",
    )
    this.#noteInterrupted = db.prepare(
      "INSERT INTO interrupted_call (session_id, call_id, time) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    )
    this.#interruptedIn = db.prepare(
      "SELECT call_id FROM interrupted_call WHERE session_id = ? ORDER BY time",
    )
    this.#forgetInterrupted = db.prepare("DELETE FROM interrupted_call WHERE session_id = ?")
  }

  /** How many group commits the store has made (each is one transaction; for tests and benchmarks). */
  get commits(): number {
    return this.#group.commits
  }

  /** Commits every step queued so far now, in one transaction (steps that ride included). */
  flush(): void {
    this.#group.flush()
  }

  /** The model asked for a call (a `pending` part). */
  requested(part: ToolPart, options?: StepOptions): Promise<ToolPart> {
    return this.#move("requested", part, ["pending"], options)
  }

  /** The call starts executing (a `running` part). Journal this before the side effect begins. */
  started(part: ToolPart, options?: StepOptions): Promise<ToolPart> {
    return this.#move("started", part, ["running"], options)
  }

  /** Live progress of a running call (title, metadata such as partial output): overwrites the part. */
  progress(part: ToolPart, options?: StepOptions): Promise<ToolPart> {
    return this.#move("progress", part, ["running"], options)
  }

  /**
   * The call ended (`completed` or `error`). Refused with `CallSettledError` when it already had, with
   * one exception: a call the fleet's sweep closed as interrupted while it still ran here (this store's
   * lease lapsed) keeps that record and gets this result beside it (`withLateResult`), once.
   */
  finished(part: ToolPart, options?: StepOptions): Promise<ToolPart> {
    return this.#move("finished", part, ["completed", "error"], options)
  }

  /** A permission request is waiting for a reply: kept until `decided`, shown again after a crash. */
  asked(request: PermissionAsked): Promise<void> {
    const callID = request.tool?.callID ?? null
    return this.#group.run(() => {
      const now = this.#now()
      const data = JSON.stringify(request)
      this.#insertAsk.run(request.id, request.sessionID, callID, data, this.#owners.stamp(), now)
      this.#append.append(request.sessionID, callID, "asked", data, now)
    })
  }

  /** The request got its reply: removes the pending ask. False when there was no such ask. */
  decided(requestID: string, reply: PermissionReply): Promise<boolean> {
    return this.#group.run(() => {
      const now = this.#now()
      const ask = this.#getAsk.get<AskRow>(requestID)
      if (!ask) return false
      this.#deleteAsk.run(requestID)
      this.#append.append(ask.session_id, ask.call_id, "decided", JSON.stringify({ requestID, reply }), now)
      return true
    })
  }

  /**
   * The recorded final part of a call, or undefined while it has not finished (or never started). A
   * step of the call still queued is committed first; steps of other calls are left to their batch.
   */
  settled(sessionID: string, callID: string): ToolPart | undefined {
    if (this.#queued.has(callKey(sessionID, callID))) this.#group.flush()
    const stored = this.#rows.read(sessionID, callID)?.part
    return stored && isFinal(stored) ? stored : undefined
  }

  /** Asks waiting for a reply (of one session, or all), oldest first. */
  pendingAsks(sessionID?: string): PermissionAsked[] {
    this.#group.flush()
    const rows =
      sessionID === undefined ? this.#asks.all<AskRow>() : this.#asksInSession.all<AskRow>(sessionID)
    return rows.map((row) => JSON.parse(row.data) as PermissionAsked)
  }

  /** The journal of a session, or of one call, in order. */
  entries(sessionID: string, callID?: string): JournalEntry[] {
    this.#group.flush()
    const rows =
      callID === undefined
        ? this.#entries.all<EntryRow>(sessionID)
        : this.#entriesOfCall.all<EntryRow>(sessionID, callID)
    return rows.map(entryOfRow)
  }

  /**
   * Start-up recovery after a crash, in one transaction.
   * 1. Every part left `pending`/`running` by an owner that is gone (its process died, or its store
   *    closed) becomes `error` `PROCESS_GONE` with `metadata.interrupted: true`, and is noted for its
   *    session (`takeInterrupted`); calls of live owners (another process using the same store) are
   *    left alone. `all: true` closes every open part, for a host that knows no one else uses it.
   * 2. Pending asks of owners that are gone are adopted by this store and returned, so a surface can
   *    show them again; they stay pending until `decided`.
   * 3. The dead owners' rows are forgotten.
   */
  recover(options: { all?: boolean } = {}): Recovery {
    this.#group.flush()
    const now = this.#now()
    return this.#db.transaction(() => {
      const verdicts = new Map<string | null, boolean>()
      const gone = (owner: string | null): boolean => {
        if (options.all) return true
        let dead = verdicts.get(owner)
        if (dead === undefined) {
          dead = !this.#owners.alive(owner)
          verdicts.set(owner, dead)
        }
        return dead
      }
      const interrupted = this.#interruptOpen(gone, now)
      const pendingAsks: PermissionAsked[] = []
      for (const ask of this.#asks.all<AskRow>()) {
        if (ask.owner === this.#owners.id || !gone(ask.owner)) continue
        this.#adoptAsk.run(this.#owners.stamp(), ask.id)
        pendingAsks.push(JSON.parse(ask.data) as PermissionAsked)
      }
      const dead = [...verdicts]
        .filter(([owner, isDead]) => isDead && owner !== null)
        .map(([owner]) => owner!)
      this.#owners.forget(dead)
      return { interrupted, pendingAsks }
    })
  }

  /**
   * The fleet's sweep (PostgreSQL; nothing to do on SQLite): for each other owner whose lease expired,
   * in one transaction of its own, whichever instance's sweep takes the owner's row first:
   * 1. its open calls become `error` `PROCESS_GONE` with `metadata.interrupted: true` (and are noted
   *    for their sessions, as `recover()` does); a finished call is never touched;
   * 2. its pending asks are withdrawn (the call waiting for each is gone): removed, journaled as
   *    `decided` with `reject` and `withdrawn: true`; its pending questions are removed;
   * 3. its row is deleted. Another sweep finds the row gone and does nothing, so sweeping is idempotent.
   * Returns the calls it closed, and the asks and questions it withdrew.
   */
  sweep(): Swept {
    this.#group.flush()
    const swept: Swept = { interrupted: [], asks: [], questions: [] }
    for (const owner of this.#owners.expired()) {
      const now = this.#now()
      this.#db.transaction(() => {
        if (!this.#owners.take(owner)) return
        for (const ask of this.#asksOf.all<AskRow>(owner)) {
          this.#deleteAsk.run(ask.id)
          const data = JSON.stringify({ requestID: ask.id, reply: "reject", withdrawn: true })
          this.#append.append(ask.session_id, ask.call_id, "decided", data, now)
          swept.asks.push({ id: ask.id, sessionID: ask.session_id })
        }
        for (const row of this.#dropQuestions.all<{ id: string; session_id: string }>(owner))
          swept.questions.push({ id: row.id, sessionID: row.session_id })
        swept.interrupted.push(...this.#interruptOpen((candidate) => candidate === owner, now))
      })
    }
    return swept
  }

  /** How many times this store found its lease taken by the fleet's sweep while it was alive. */
  get lapses(): number {
    return this.#owners.lapses
  }

  /** Whether this store's lease has been renewed on time for a whole lease: the fleet sweeps only then. */
  get steady(): boolean {
    return this.#owners.steady()
  }

  /** This store's owner id: what its asks and open calls are stamped with. */
  get owner(): string {
    return this.#owners.id
  }

  /** Closes every open call whose owner is `gone` as interrupted (inside the caller's transaction). */
  #interruptOpen(gone: (owner: string | null) => boolean, now: number): ToolPart[] {
    const interrupted: ToolPart[] = []
    for (const { part, owner } of this.#rows.open()) {
      if (!gone(owner)) continue
      const next = interrupt(part, now, PROCESS_GONE)
      this.#rows.write(next, part, this.#owners.stamp(), now)
      this.#append.append(next.sessionID, next.callID, "interrupted", entryData("interrupted", next), now)
      this.#noteInterrupted.run(next.sessionID, next.callID, now)
      this.#nothingInterrupted.clear()
      interrupted.push(next)
    }
    return interrupted
  }

  /**
   * The calls of a session that recovery closed as interrupted and that nobody has reported yet, oldest
   * first; taking them marks them reported, so each is reported once. The runtime asks on every call: a
   * session found with none is asked about again after `INTERRUPTED_RECHECK_MS`, or at once when this
   * store closes calls as interrupted (a sweep by another process or host is seen within that time).
   */
  takeInterrupted(sessionID: string): ToolPart[] {
    const now = monotonicMs()
    const checked = this.#nothingInterrupted.get(sessionID)
    if (checked !== undefined && now - checked < INTERRUPTED_RECHECK_MS) return []
    const rows = this.#interruptedIn.all<{ call_id: string }>(sessionID)
    if (rows.length === 0) {
      if (this.#nothingInterrupted.size >= 10_000) this.#nothingInterrupted.clear()
      this.#nothingInterrupted.set(sessionID, now)
      return []
    }
    this.#nothingInterrupted.delete(sessionID)
    this.#group.flush()
    return this.#db.transaction(() => {
      const parts = this.#interruptedIn
        .all<{ call_id: string }>(sessionID)
        .flatMap((row) => this.#rows.read(sessionID, row.call_id)?.part ?? [])
      this.#forgetInterrupted.run(sessionID)
      return parts
    })
  }

  #move(
    kind: JournalKind,
    part: ToolPart,
    accepted: readonly ToolState["status"][],
    options: StepOptions = {},
  ): Promise<ToolPart> {
    if (!accepted.includes(part.state.status)) {
      const message = `journal.${kind}() takes a ${accepted.join(" or ")} part; call ${part.callID} is ${part.state.status}`
      return Promise.reject(new TypeError(message))
    }
    // A new call is stamped with this owner: its lease must be held (owners.ts).
    if (kind === "requested" || kind === "started") this.#owners.ensureLease()
    const queue = options.defer ? this.#group.defer.bind(this.#group) : this.#group.run.bind(this.#group)
    const key = callKey(part.sessionID, part.callID)
    const queued = queue(() => {
      const now = this.#now()
      const { stored, keep } = this.#parts.take(
        part.sessionID,
        part.callID,
        kind === "requested" && options.fresh === true,
      )
      if (stored && isFinal(stored)) {
        // Swept while it ran here (this owner's lease lapsed): its live progress is dropped, and its
        // result is kept beside the interruption.
        const late = kind === "started" ? undefined : withLateResult(stored, part.state)
        if (!late) throw new CallSettledError(stored)
        if (kind === "progress") return stored
        keep(late, now)
        this.#append.append(late.sessionID, late.callID, "finished", lateEntryData(part.state), now)
        return late
      }
      // A call that is already running may have begun its side effect: starting it again could run
      // it twice. (After a crash, recover() closes it as interrupted instead.)
      if (kind === "started" && stored?.state.status === "running") {
        throw new IllegalTransitionError(stored, "running")
      }
      if (!stored) this.#owners.reclaim()
      // advance() keeps the stored identity (id, messageID, tool) and refuses a backward move.
      const next = stored ? advance(stored, part.state) : part
      keep(next, now)
      this.#append.append(next.sessionID, next.callID, kind, entryData(kind, next), now)
      return next
    })
    this.#queued.set(key, (this.#queued.get(key) ?? 0) + 1)
    const done = () => {
      const left = (this.#queued.get(key) ?? 1) - 1
      if (left > 0) this.#queued.set(key, left)
      else this.#queued.delete(key)
    }
    queued.then(done, done)
    return queued
  }
}
