// The store's event log (the `event` table): the events every instance sharing a PostgreSQL store
// publishes, in one order for the whole store, so each instance's `/events` can stream the fleet's.
import type { Database, Statement } from "./sqlite.ts"

/**
 * The key of the transaction-scoped advisory lock appends take. Holding it from numbering to commit
 * makes appends commit in `seq` order, one after another: a reader that has seen `seq` n and asks for
 * what comes after never misses an n+1 that commits late (an identity column's numbers can commit out
 * of order across concurrent transactions; these cannot).
 */
const APPEND_LOCK = 7_346_011_029

/** The channel appends NOTIFY on commit (the payload is the newest seq). */
export const EVENT_CHANNEL = "toolbelt_events"

/** One event to append: its type, its session if any, and its `{type, properties}` as JSON. */
export interface NewStoredEvent {
  readonly type: string
  readonly session: string | undefined
  readonly data: string
}

export interface StoredEvent extends NewStoredEvent {
  readonly seq: number
  /** Epoch ms of its append. */
  readonly time: number
}

interface EventRow {
  seq: number | string
  type: string
  session_id: string | null
  data: string
  time: number | string
}

/**
 * Appends, reads and prunes the event log. Every method is one statement or one short transaction;
 * on SQLite it works too (tests), though serve uses it only on PostgreSQL.
 */
export class StoreEvents {
  readonly #db: Database
  readonly #insert: Statement
  readonly #newest: Statement
  readonly #oldest: Statement
  readonly #after: Statement
  readonly #prune: Statement
  readonly #identity: Statement
  #notify: Statement | undefined

  constructor(db: Database) {
    this.#db = db
    this.#insert = db.prepare("INSERT INTO event (seq, type, session_id, data, time) VALUES (?, ?, ?, ?, ?)")
    this.#newest = db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM event")
    this.#oldest = db.prepare("SELECT MIN(seq) AS seq FROM event")
    this.#after = db.prepare(
      "SELECT seq, type, session_id, data, time FROM event WHERE seq > ? ORDER BY seq LIMIT ?",
    )
    // The newest is always kept: numbering goes on from it.
    this.#prune = db.prepare("DELETE FROM event WHERE seq < ?1 AND (seq <= ?2 OR time < ?3)")
    this.#identity = db.prepare("SELECT id FROM store_identity")
  }

  /** The store's name in event ids: made once by the migration, the same for every instance. */
  identity(): string {
    return this.#identity.get<{ id: string }>()?.id ?? "store"
  }

  /**
   * Appends events in the order given, numbered after the newest, in one transaction that holds the
   * append lock until it commits and NOTIFYs `EVENT_CHANNEL` on commit (PostgreSQL). Returns the seq
   * of the last one (the newest before, when `events` is empty).
   */
  append(events: readonly NewStoredEvent[], now = Date.now()): number {
    return this.#db.transaction(() => {
      if (this.#db.engine === "postgres") this.#db.exec(`SELECT pg_advisory_xact_lock(${APPEND_LOCK})`)
      let seq = Number(this.#newest.get<{ seq: number | string }>()?.seq ?? 0)
      for (const event of events) this.#insert.run(++seq, event.type, event.session ?? null, event.data, now)
      if (this.#db.engine === "postgres" && events.length > 0) {
        this.#notify ??= this.#db.prepare("SELECT pg_notify(?, ?)")
        // run, not get: its answer is not read, so it goes out with the COMMIT (postgres/held.ts).
        this.#notify.run(EVENT_CHANNEL, String(seq))
      }
      return seq
    })
  }

  /** The seq of the newest event (0 when there is none). */
  newest(): number {
    return Number(this.#newest.get<{ seq: number | string }>()?.seq ?? 0)
  }

  /** The seq of the oldest event held (undefined when there is none). */
  oldest(): number | undefined {
    const seq = this.#oldest.get<{ seq: number | string | null }>()?.seq
    return seq === null || seq === undefined ? undefined : Number(seq)
  }

  /** Up to `limit` events after `seq`, oldest first. */
  after(seq: number, limit: number): StoredEvent[] {
    return this.#after.all<EventRow>(seq, limit).map((row) => ({
      seq: Number(row.seq),
      type: row.type,
      session: row.session_id ?? undefined,
      data: row.data,
      time: Number(row.time),
    }))
  }

  /**
   * Deletes events beyond the newest `keep` and those older than `maxAgeMs`; returns how many went.
   * Any instance may run it at any time: appends and readers are unaffected (a reader behind the
   * oldest held event is told to fetch its state again).
   */
  prune(keep: number, maxAgeMs: number, now = Date.now()): number {
    const newest = this.newest()
    return this.#prune.run(newest, newest - keep, now - maxAgeMs).changes
  }
}
