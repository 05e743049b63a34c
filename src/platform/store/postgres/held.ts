/**
 * Statements of an open transaction held back on the main thread, so they cost no round trip of their
 * own: each blocking round trip through the worker (Atomics.wait, then PostgreSQL) costs far more
 * than the statement, and a journal step is five statements of which the caller reads one answer.
 *
 * What may be held (database.ts decides): inside a transaction, a statement whose answer nobody has
 * read yet: `BEGIN`, `SAVEPOINT`, an `exec`, a `run` (its `changes` is read lazily, which sends it).
 * The held statements go out, in order and in the same message, with the next statement whose
 * answer is needed: a `get` or `all`, a `changes` read, and always a level's end (`COMMIT`;
 * `RELEASE SAVEPOINT` unless all that is held is `BEGIN`/`SAVEPOINT`/`RELEASE`, which fail only in a
 * transaction that already failed). So a held statement's failure surfaces inside the transaction
 * (or savepoint) that issued it, at the latest when it ends, and nothing is committed that did not
 * run: durability is the same as sending each at once. A level rolled back before its opener went
 * out drops what it held and costs no round trip at all.
 */
import type { RunResult } from "../sqlite.ts"
import type { Query } from "./protocol.ts"

export interface Held extends Query {
  /** What a `BEGIN` or `SAVEPOINT` opens: "" for the transaction, else the savepoint's name. */
  readonly opens: string | undefined
  /** `BEGIN`, `SAVEPOINT`, `RELEASE SAVEPOINT`: they fail only where the transaction already failed. */
  readonly control: boolean
  /** How it went, once sent (or dropped by a rollback). */
  outcome?: { readonly changes: number } | { readonly error: Error }
}

export class HeldStatements {
  #held: Held[] = []

  get size(): number {
    return this.#held.length
  }

  /** Whether only `BEGIN`, `SAVEPOINT` and `RELEASE SAVEPOINT` are held. */
  get onlyControl(): boolean {
    return this.#held.every((held) => held.control)
  }

  hold(query: Query, options: { control?: boolean; opens?: string } = {}): Held {
    const held: Held = { ...query, control: options.control === true, opens: options.opens }
    this.#held.push(held)
    return held
  }

  /** The newest held statement, taken out (to go as a message's own statement, after the others). */
  takeLast(): Held | undefined {
    return this.#held.pop()
  }

  /** Everything held, in order, for sending; the holder is empty afterwards. */
  take(): Held[] {
    return this.#held.splice(0)
  }

  /**
   * Records what became of statements sent: the first `counts.length` ran, the rest failed with
   * `error` (or were not run because an earlier one did).
   */
  settle(sent: readonly Held[], counts: readonly number[] | undefined, error: Error | undefined): void {
    sent.forEach((held, index) => {
      const changes = counts?.[index]
      held.outcome = changes === undefined ? { error: error ?? notRun() } : { changes }
    })
  }

  /**
   * A level is rolled back: drops what it holds. True when its opener was still held (so the server
   * never saw the level and there is nothing to roll back there), false when the opener had gone
   * out (everything held was issued inside the level, after it, and is dropped).
   */
  dropLevel(opens: string): boolean {
    let index = -1
    for (let at = this.#held.length - 1; at >= 0; at--) {
      if (this.#held[at]!.opens === opens) {
        index = at
        break
      }
    }
    const dropped = this.#held.splice(Math.max(index, 0))
    for (const held of dropped)
      held.outcome = { error: new Error("The statement was rolled back before it ran.") }
    return index >= 0
  }

  /** Forgets everything held (the store closed). */
  clear(): void {
    for (const held of this.#held.splice(0)) held.outcome = { error: new Error("The store was closed.") }
  }
}

/** A held `run`'s result: reading `changes` sends what is held (`send`) when it has not gone out yet. */
export class HeldResult implements RunResult {
  readonly lastInsertRowid = 0
  readonly #held: Held
  readonly #send: () => void

  constructor(held: Held, send: () => void) {
    this.#held = held
    this.#send = send
  }

  get changes(): number {
    if (!this.#held.outcome) this.#send()
    const outcome = this.#held.outcome!
    if ("error" in outcome) throw outcome.error
    return outcome.changes
  }
}

function notRun(): Error {
  return new Error("The statement was not run: one before it in the same transaction failed.")
}
