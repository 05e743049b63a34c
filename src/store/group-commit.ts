import type { Database } from "./sqlite.ts"

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
 *    savepoint: a write that throws is undone alone and its promise rejects; the others go on.
 * 3. Only after `COMMIT` returns do the promises settle. A write's promise resolves when it is as
 *    durable as the connection's `synchronous` makes any commit, so awaiting it before a side effect
 *    keeps the write-ahead rule; batching only removes commits, never a guarantee.
 * 4. If the commit itself fails, every write of the batch rejects with that error.
 */
export class GroupCommit {
  readonly #db: Database
  #queue: Pending[] = []
  #scheduled = false
  #closed = false

  constructor(db: Database) {
    this.#db = db
  }

  /** Queues a write; resolves with what `apply` returned, once its batch has committed. */
  run<T>(apply: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("The store is closed"))
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ apply, resolve: resolve as (value: unknown) => void, reject })
      this.#schedule()
    })
  }

  /** How many writes wait for the next commit. */
  get pending(): number {
    return this.#queue.length
  }

  /**
   * Commits what is queued now (reads call this first, so they see every write issued before them).
   * Inside a transaction someone else opened it does nothing: the batch would commit, or roll back,
   * with that transaction, and its promises must not resolve before a commit of their own.
   */
  flush(): void {
    this.#scheduled = false
    if (this.#queue.length === 0) return
    if (this.#db.inTransaction) {
      this.#schedule(5)
      return
    }
    const batch = this.#queue
    this.#queue = []
    const outcomes: { ok: boolean; value: unknown }[] = []
    try {
      this.#db.transaction(() => {
        for (const write of batch) {
          try {
            outcomes.push({ ok: true, value: this.#db.transaction(write.apply) })
          } catch (error) {
            outcomes.push({ ok: false, value: error })
          }
        }
      })
    } catch (error) {
      for (const write of batch) write.reject(error)
      return
    }
    batch.forEach((write, index) => {
      const outcome = outcomes[index]!
      if (outcome.ok) write.resolve(outcome.value)
      else write.reject(outcome.value)
    })
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
