import type { Todo } from "./record-shapes.ts"
import type { Database, Statement } from "./sqlite.ts"

/** A session's todo list, kept in order. */
export class Todos {
  readonly #db: Database
  readonly #get: Statement
  readonly #clear: Statement
  readonly #insert: Statement

  constructor(db: Database) {
    this.#db = db
    this.#get = db.prepare("SELECT data FROM todo WHERE session_id = ? ORDER BY position")
    this.#clear = db.prepare("DELETE FROM todo WHERE session_id = ?")
    this.#insert = db.prepare("INSERT INTO todo (session_id, position, data) VALUES (?, ?, ?)")
  }

  get(sessionID: string): Todo[] {
    return this.#get.all<{ data: string }>(sessionID).map((row) => JSON.parse(row.data) as Todo)
  }

  /** Replaces the whole list, atomically. */
  set(sessionID: string, todos: readonly Todo[]): void {
    this.#db.transaction(() => {
      this.#clear.run(sessionID)
      todos.forEach((todo, position) => {
        this.#insert.run(sessionID, position, JSON.stringify(todo))
      })
    })
  }
}
