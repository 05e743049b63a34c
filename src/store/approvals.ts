import type { ApprovalStore, SavedApproval } from "../permission/approvals.ts"
import { ascending } from "../util/id.ts"
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

  constructor(db: Database) {
    this.#db = db
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
    return this.#list.all<ApprovalRow>(projectID).map(toApproval)
  }

  /** Saves an approval; saving one that exists returns the existing one (same id and time). */
  add(approval: Omit<SavedApproval, "id" | "time">): SavedApproval {
    return this.#db.transaction(() => {
      const now = Date.now()
      this.#insert.run(ascending("apr", now), approval.projectID, approval.permission, approval.pattern, now)
      return toApproval(
        this.#find.get<ApprovalRow>(approval.projectID, approval.permission, approval.pattern)!,
      )
    })
  }

  remove(id: string): boolean {
    return this.#remove.run(id).changes > 0
  }
}

function toApproval(row: ApprovalRow): SavedApproval {
  return {
    id: row.id,
    projectID: row.project_id,
    permission: row.permission,
    pattern: row.pattern,
    time: row.time,
  }
}
