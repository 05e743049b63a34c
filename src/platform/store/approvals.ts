import { ascending } from "../util/id.ts"
import { fromRow } from "./rows.ts"
import type { ApprovalStore, SavedApproval } from "./saved-approval.ts"
import type { Database, Statement } from "./sqlite.ts"

interface ApprovalRow {
  id: string
  project_id: string
  permission: string
  pattern: string
  time: number
}

/** "Always" approvals saved per project, in the store: they survive restarts. */
export class SqliteApprovalStore implements ApprovalStore {
  readonly #db: Database
  readonly #list: Statement
  readonly #insert: Statement
  readonly #find: Statement
  readonly #remove: Statement
  readonly #dataVersion: Statement | undefined
  /**
   * Each project's list as last read, and the `data_version` it was read at: every permission check
   * consults the list, and it changes rarely. The version moves when another connection (another
   * process, or another store on the file) commits; this connection's own changes go through `add`
   * and `remove`, which drop the cache.
   */
  #cache = new Map<string, SavedApproval[]>()
  #cachedAt: unknown

  constructor(db: Database) {
    this.#db = db
    // PostgreSQL has no such counter: there the list is read every time.
    this.#dataVersion = db.engine === "sqlite" ? db.prepare("PRAGMA data_version") : undefined
    this.#list = db.prepare("SELECT * FROM permission_approval WHERE project_id = ? ORDER BY time, id")
    this.#insert = db.prepare(
      `INSERT INTO permission_approval (id, project_id, permission, pattern, time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (project_id, permission, pattern) DO NOTHING`,
    )
    this.#find = db.prepare(
      "SELECT * FROM permission_approval WHERE project_id = ? AND permission = ? AND pattern = ?",
    )
    this.#remove = db.prepare("DELETE FROM permission_approval WHERE id = ?")
  }

  /** A project's approvals, oldest first. */
  list(projectID: string): SavedApproval[] {
    const version = this.#dataVersion ? this.#dataVersion.get<{ data_version: unknown }>()?.data_version : {}
    if (version !== this.#cachedAt) {
      this.#cache.clear()
      this.#cachedAt = version
    }
    let saved = this.#cache.get(projectID)
    if (!saved) {
      saved = this.#list.all<ApprovalRow>(projectID).map(toApproval)
      // Inside a transaction the rows may yet be rolled back: not worth remembering.
      if (!this.#db.inTransaction) this.#cache.set(projectID, saved)
    }
    return saved.map((approval) => ({ ...approval }))
  }

  /** Saves an approval; saving one that exists returns the existing one (same id and time). */
  add(approval: Omit<SavedApproval, "id" | "time">): SavedApproval {
    this.#cache.clear()
    return this.#db.transaction(() => {
      const now = Date.now()
      this.#insert.run(ascending("apr", now), approval.projectID, approval.permission, approval.pattern, now)
      return toApproval(
        this.#find.get<ApprovalRow>(approval.projectID, approval.permission, approval.pattern)!,
      )
    })
  }

  remove(id: string): boolean {
    this.#cache.clear()
    return this.#remove.run(id).changes > 0
  }
}

function toApproval(row: ApprovalRow): SavedApproval {
  return fromRow(row)
}
