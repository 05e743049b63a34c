import type { Database } from "./sqlite.ts"

/** How long a deferred write waits for a batch to ride with before it commits on its own. */
export const DEFER_MS = 10

interface Pending {
  readonly apply: () => unknown
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

/**
 * Group commit: writes issued during one turn of the event loop share one transaction, so one
 * commit (and, with `synchronous=FULL`, one fsync) covers all of them.
 *
 * 1. `run(apply)` queues `apply` and returns a promise; the first queued write schedules a flush with
 *    `setImmediate`, so every write issued before the loop comes round joins the same batch.
 * 2. `flush()` applies the batch in one transaction (`BEGIN IMMEDIATE`), each write in its own
 *    savepoint: a write that throws is undone alone and its promise rejects; the others go on. (A
 *    write alone in its batch runs without one: undoing the transaction undoes just it. On
 *    PostgreSQL the batch is tried without savepoints first, and apart only when a write failed.)
 * 3. Only after `COMMIT` returns do the promises settle. A write's promise resolves when it is as
 *    durable as the connection's `synchronous` makes any commit, so awaiting it before a side effect
 *    keeps the write-ahead rule; batching only removes commits, never a guarantee.
 * 4. If the commit itself fails, every write of the batch rejects with that error. On PostgreSQL, a
 *    batch whose connection was lost before it committed (the worker tells: nothing of it was saved,
 *    postgres/worker.ts) is applied once more, on the connection once it is back: a call's final
 *    write cut by a restart is recorded instead of failing after the tool ran (and staying `running`
 *    while its owner lives). A COMMIT whose outcome stayed unknown is not tried again.
 * 5. `defer(apply)` queues a write that needs no commit of its own: it rides with the next batch
 *    someone flushes (a journal step, a read), or, if none comes, commits after `DEFER_MS`.
 * 6. While a batch is applied in one transaction without savepoints (`staging`), a write may leave
 *    part of its work to `beforeCommit` hooks, which run once, inside the transaction, after the last
 *    write: a row several writes of the batch update is then written once. A batch that fails is
 *    applied again apart, where nothing is staged.
 */
export class GroupCommit {
  readonly #db: Database
  #queue: Pending[] = []
  #scheduled = false
  #deferred: ReturnType<typeof setTimeout> | undefined
  #closed = false
  #commits = 0
  #batch = 0
  #staging = false
  readonly #beforeCommit: (() => void)[] = []

  constructor(db: Database) {
    this.#db = db
  }

  /** Queues a write; resolves with what `apply` returned, once its batch has committed. */
  run<T>(apply: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("The store is closed."))
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ apply, resolve: resolve as (value: unknown) => void, reject })
      this.#schedule()
    })
  }

  /**
   * Queues a write without asking for a commit now: it joins the next batch, which commits within
   * `DEFER_MS` at the latest. For writes that must be durable only before a later write is (the read
   * ledger's stamp, before the step that reports the read finished), so they cost no commit of their
   * own. Resolves like `run`.
   */
  defer<T>(apply: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("The store is closed."))
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ apply, resolve: resolve as (value: unknown) => void, reject })
      if (!this.#scheduled) this.#deferred ??= setTimeout(() => this.flush(), DEFER_MS)
    })
  }

  /** How many writes wait for the next commit. */
  get pending(): number {
    return this.#queue.length
  }

  /**
   * The batch being applied (or last applied): a number that changes with every batch, so a write can
   * tell whether something it remembers was written in its own transaction.
   */
  get batch(): number {
    return this.#batch
  }

  /**
   * Whether the write being applied may stage work for `beforeCommit` (step 6): its batch commits as
   * one transaction, and a failure of any of it undoes all of it.
   */
  get staging(): boolean {
    return this.#staging
  }

  /** Runs `hook` in every staging batch's transaction, after its last write (step 6). */
  beforeCommit(hook: () => void): void {
    this.#beforeCommit.push(hook)
  }

  /** How many batches have committed (a batch is one transaction). */
  get commits(): number {
    return this.#commits
  }

  /**
   * Commits what is queued now (reads call this first, so they see every write issued before them).
   * Inside a transaction someone else opened it does nothing: the batch would commit, or roll back,
   * with that transaction, and its promises must not resolve before a commit of their own.
   */
  flush(): void {
    this.#scheduled = false
    clearTimeout(this.#deferred)
    this.#deferred = undefined
    if (this.#queue.length === 0) return
    if (this.#db.inTransaction) {
      this.#schedule(5)
      return
    }
    const batch = this.#queue
    this.#queue = []
    let outcomes: { ok: boolean; value: unknown }[]
    try {
      outcomes = this.#commit(batch)
    } catch (error) {
      try {
        // Cut before it committed: nothing was saved, so applying it again cannot apply it twice.
        if (!cutBeforeCommit(error)) throw error
        outcomes = this.#commit(batch)
      } catch (again) {
        for (const write of batch) write.reject(again)
        return
      }
    }
    this.#commits++
    batch.forEach((write, index) => {
      const outcome = outcomes[index]!
      if (outcome.ok) write.resolve(outcome.value)
      else write.reject(outcome.value)
    })
  }

  #commit(batch: readonly Pending[]): { ok: boolean; value: unknown }[] {
    return (batch.length > 1 && this.#together(batch)) || this.#apart(batch)
  }

  /**
   * Applies the batch in one transaction, each write in a savepoint of its own (step 2). Alone in its
   * batch, a write needs no savepoint: its failure undoes the whole transaction, which is the same.
   */
  #apart(batch: readonly Pending[]): { ok: boolean; value: unknown }[] {
    this.#batch++
    if (batch.length === 1) return [{ ok: true, value: this.#db.transaction(batch[0]!.apply) }]
    const outcomes: { ok: boolean; value: unknown }[] = []
    this.#db.transaction(() => {
      for (const write of batch) {
        try {
          outcomes.push({ ok: true, value: this.#db.transaction(write.apply) })
        } catch (error) {
          outcomes.push({ ok: false, value: error })
        }
      }
    })
    return outcomes
  }

  /**
   * The batch is first tried in one transaction without savepoints: on PostgreSQL each savepoint's
   * release is a round trip, and on SQLite a savepoint and its release are two statements per write
   * (a tenth of an MCP read's store work). If a write fails, or the commit does because a statement of one
   * did (held statements fail at the latest there, postgres/held.ts), nothing was committed and the
   * batch is applied again `#apart`, under a new batch number (what a write remembers of the failed
   * attempt is not used). A commit whose connection was lost is not tried apart here: `flush()`
   * decides (step 4). Returns undefined to say "apply it apart".
   */
  #together(batch: readonly Pending[]): { ok: boolean; value: unknown }[] | undefined {
    this.#batch++
    let failed = false
    try {
      return this.#db.transaction(() => {
        this.#staging = true
        try {
          const outcomes = batch.map((write) => {
            try {
              return { ok: true, value: write.apply() }
            } catch (error) {
              failed = true
              throw error
            }
          })
          for (const hook of this.#beforeCommit) hook()
          return outcomes
        } finally {
          this.#staging = false
        }
      })
    } catch (error) {
      if (!failed && (error as { lost?: unknown }).lost === true) throw error
      return undefined
    }
  }

  #schedule(delay?: number): void {
    if (this.#scheduled) return
    this.#scheduled = true
    if (delay === undefined) setImmediate(() => this.flush())
    else setTimeout(() => this.flush(), delay)
  }

  /** Commits what is queued and refuses later writes. */
  close(): void {
    this.flush()
    this.#closed = true
  }
}

/**
 * A PostgreSQL transaction whose connection was lost before it committed: the worker knows nothing
 * of it was saved (a COMMIT it could not resolve says `unknown`).
 */
function cutBeforeCommit(error: unknown): boolean {
  const failure = error as { lost?: unknown; unknown?: unknown }
  return failure.lost === true && failure.unknown !== true
}
