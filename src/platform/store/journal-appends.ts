import type { GroupCommit } from "./group-commit.ts"
import type { Database, SqlValue, Statement } from "./sqlite.ts"

/** Rows one statement inserts at most (SQLite binds up to 32,766 values; PostgreSQL 65,535). */
const MAX_ROWS = 64
const COLUMNS = 5

/**
 * The journal's rows. In a batch the group commit applies in one transaction without savepoints
 * (`staging`, group-commit.ts step 6) they are kept and inserted together just before it commits, in the
 * order appended, by one statement for up to MAX_ROWS: a read-only call's three steps (requested,
 * started, finished) were three statements, each paying the driver's fixed cost (~10 µs on node:sqlite).
 * Nothing in a batch reads the journal back, and rows of a batch that failed are dropped with it (it is
 * applied again apart, where each row is inserted at once).
 */
export class JournalAppends {
  readonly #db: Database
  readonly #group: GroupCommit
  /** Statements inserting 1 to MAX_ROWS rows, made when first needed. */
  readonly #inserts = new Map<number, Statement>()
  /** The kept rows' values, COLUMNS a row, and the batch they belong to. */
  #kept: SqlValue[] = []
  #keptIn = -1

  constructor(db: Database, group: GroupCommit) {
    this.#db = db
    this.#group = group
    group.beforeCommit(() => this.#insertKept())
  }

  append(sessionID: string, callID: string | null, kind: string, data: string, time: number): void {
    if (!this.#group.staging) {
      this.#insert(1).run(sessionID, callID, kind, data, time)
      return
    }
    if (this.#keptIn !== this.#group.batch) {
      this.#kept = []
      this.#keptIn = this.#group.batch
    }
    this.#kept.push(sessionID, callID, kind, data, time)
  }

  #insertKept(): void {
    const kept = this.#kept
    this.#kept = []
    if (this.#keptIn !== this.#group.batch) return
    for (let at = 0; at < kept.length; at += MAX_ROWS * COLUMNS) {
      const values = kept.slice(at, at + MAX_ROWS * COLUMNS)
      this.#insert(values.length / COLUMNS).run(...values)
    }
  }

  #insert(rows: number): Statement {
    let statement = this.#inserts.get(rows)
    if (!statement) {
      const values = Array.from({ length: rows }, () => "(?, ?, ?, ?, ?)").join(", ")
      statement = this.#db.prepare(
        `INSERT INTO journal (session_id, call_id, kind, data, time) VALUES ${values}`,
      )
      this.#inserts.set(rows, statement)
    }
    return statement
  }
}
