import { logger } from "../util/log.ts"
import type { GroupCommit } from "./group-commit.ts"
import type { Database, Statement } from "./sqlite.ts"

const log = logger("store")

/**
 * What each session has been shown once (keys such as `instructions:/p/src/AGENTS.md`), kept with the
 * session so that every process sharing it (`toolbelt call --session`, an MCP server, a library user)
 * agrees: an instruction file is attached once per session, not once per process.
 *
 * A new key joins the journal's next group commit, like a read ledger stamp: at the latest the step that
 * finishes the call that saw it. Until then this process remembers it as pending, so it is not shown twice.
 */
export class SessionSeen {
  readonly #group: GroupCommit
  readonly #insert: Statement
  readonly #get: Statement
  /** Keys recorded by this process and not committed yet: `session \0 key`. */
  readonly #pending = new Set<string>()

  constructor(db: Database, group: GroupCommit) {
    this.#group = group
    this.#insert = db.prepare(
      "INSERT INTO session_seen (session_id, key, time) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    )
    this.#get = db.prepare("SELECT 1 AS seen FROM session_seen WHERE session_id = ? AND key = ?")
  }

  /**
   * True the first time the session sees `key`, and records it; false ever after, from any process.
   * 1. Seen by this process and not committed yet: false.
   * 2. In the table (committed by this process or another): false.
   * 3. Otherwise: queued for the next group commit, remembered as pending until then; true.
   */
  firstTime(sessionID: string, key: string, now = Date.now()): boolean {
    const id = `${sessionID}\0${key}`
    if (this.#pending.has(id)) return false
    if (this.#get.get(sessionID, key)) return false
    this.#pending.add(id)
    this.#group
      .defer(() => {
        // From here on the table answers (the write commits in this same synchronous batch).
        this.#pending.delete(id)
        return this.#insert.run(sessionID, key, now)
      })
      .catch((error: unknown) =>
        log.warn("could not record what a session was shown", { sessionID, key, error: String(error) }),
      )
    return true
  }
}
