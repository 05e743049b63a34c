import type { Database, Statement } from "./sqlite.ts"

/**
 * The agent each session runs as now (`plan` after `plan_enter`, `build` again after `plan_exit`), so
 * that every process continuing a session (`toolbelt run --session`, `toolbelt call --session`, an MCP
 * connection, a library user) applies the same agent's rules. A session with none set runs as its
 * surface's agent.
 */
export class SessionAgents {
  readonly #get: Statement
  readonly #set: Statement
  #changes = 0

  constructor(db: Database) {
    this.#get = db.prepare("SELECT agent FROM session_agent WHERE session_id = ?")
    this.#set = db.prepare(
      `INSERT INTO session_agent (session_id, agent, time) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET agent = excluded.agent, time = excluded.time`,
    )
  }

  /** The session's agent, or undefined when none was set. */
  get(sessionID: string): string | undefined {
    return this.#get.get<{ agent: string }>(sessionID)?.agent
  }

  /** Sets the session's agent (committed at once: the next call, in any process, reads it). */
  set(sessionID: string, agent: string, now = Date.now()): void {
    this.#set.run(sessionID, agent, now)
    this.#changes++
  }

  /**
   * How many times this process set an agent: while it stays the same, an agent read earlier was
   * changed since only by another process, which the next call's own read sees.
   */
  get changes(): number {
    return this.#changes
  }
}
