import { ascending } from "../util/id.ts"
import { logger } from "../util/log.ts"
import type { Database, Statement } from "./sqlite.ts"

/** One permission rule of a session, as stored (the runtime's `Rule` without its source). */
export interface SessionRule {
  readonly permission: string
  readonly pattern: string
  readonly action: "allow" | "deny" | "ask"
}

export interface SessionInfo {
  readonly id: string
  /** The project directory (realpath) the session works in. */
  readonly projectID: string
  /** The host name of the toolbelt that created it, when it said (sessions before schema 9 have none). */
  readonly host?: string
  /** The session that started this one as a subagent. */
  readonly parentID?: string
  readonly agent: string
  readonly title: string
  /** Rules of this session on top of its agent's (a subagent's: its parent's denials and more). */
  readonly permission?: readonly SessionRule[]
  /** Epoch ms. */
  readonly time: { readonly created: number; readonly updated: number }
}

export interface NewSession {
  /** Default: a fresh `ses_` id. */
  readonly id?: string
  readonly projectID: string
  /**
   * The host name of the toolbelt creating it (`os.hostname()`); default: its parent's, else none
   * (the store does not assume it runs where its sessions do).
   */
  readonly host?: string
  readonly parentID?: string
  readonly agent: string
  readonly title?: string
  readonly permission?: readonly SessionRule[]
}

interface SessionRow {
  id: string
  project_id: string
  host: string | null
  parent_id: string | null
  agent: string
  title: string
  permission: string | null
  time_created: number
  time_updated: number
}

const log = logger("store")

/** A LIMIT that limits nothing (PostgreSQL refuses SQLite's -1). */
const NO_LIMIT = Number.MAX_SAFE_INTEGER

/** Tables keyed by session without a foreign key (see migrations.ts), cleared by `remove`. */
const SESSION_TABLES = [
  "part",
  "journal",
  "pending_ask",
  "read_ledger",
  "todo",
  "session_seen",
  "session_agent",
] as const

export class Sessions {
  readonly #db: Database
  readonly #insert: Statement
  readonly #get: Statement
  readonly #host: Statement
  readonly #list: Statement
  readonly #touch: Statement
  readonly #tree: Statement
  readonly #delete: Statement
  readonly #clear: Statement[]
  readonly #outputs: Statement
  readonly #orphan: Statement
  readonly #flush: () => void
  readonly #removed: (sessionIDs: readonly string[]) => void

  /**
   * `flush` commits queued journal steps, so `remove` comes after them; `removed` hears which sessions a
   * removal deleted (what this process remembers of them goes too).
   */
  constructor(
    db: Database,
    flush: () => void = () => {},
    removed: (sessionIDs: readonly string[]) => void = () => {},
  ) {
    this.#db = db
    this.#flush = flush
    this.#removed = removed
    this.#insert = db.prepare(
      `INSERT INTO session (id, project_id, host, parent_id, agent, title, permission, time_created, time_updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    this.#get = db.prepare("SELECT * FROM session WHERE id = ?")
    this.#host = db.prepare("SELECT host FROM session WHERE id = ?")
    this.#list = db.prepare(
      `SELECT * FROM session
       WHERE (CAST(?1 AS TEXT) IS NULL OR project_id = ?1) AND (CAST(?2 AS TEXT) IS NULL OR parent_id = ?2)
         AND (CAST(?4 AS TEXT) IS NULL OR host = ?4)
       ORDER BY time_updated DESC, id DESC LIMIT ?3`,
    )
    this.#touch = db.prepare("UPDATE session SET time_updated = ? WHERE id = ?")
    this.#tree = db.prepare(
      `WITH RECURSIVE tree (id) AS (
         SELECT id FROM session WHERE id = ?
         UNION SELECT session.id FROM session JOIN tree ON session.parent_id = tree.id
       ) SELECT id FROM tree`,
    )
    this.#delete = db.prepare("DELETE FROM session WHERE id = ?")
    this.#clear = SESSION_TABLES.map((table) => db.prepare(`DELETE FROM ${table} WHERE session_id = ?`))
    this.#outputs = db.prepare(
      "SELECT DISTINCT output_digest AS digest FROM part WHERE session_id = ? AND output_digest IS NOT NULL",
    )
    this.#orphan = db.prepare(
      "DELETE FROM part_output WHERE digest = ? AND NOT EXISTS (SELECT 1 FROM part WHERE output_digest = ?)",
    )
  }

  /** Creates a session; a duplicate id or an unknown parent throws (SQLite constraint error). */
  create(input: NewSession, now = Date.now()): SessionInfo {
    const session: SessionInfo = {
      id: input.id ?? ascending("ses", now),
      projectID: input.projectID,
      ...this.#hostFor(input),
      ...(input.parentID === undefined ? {} : { parentID: input.parentID }),
      agent: input.agent,
      title: input.title ?? "",
      ...(input.permission === undefined ? {} : { permission: input.permission.map(storedRule) }),
      time: { created: now, updated: now },
    }
    this.#insert.run(
      session.id,
      session.projectID,
      session.host ?? null,
      session.parentID ?? null,
      session.agent,
      session.title,
      session.permission === undefined ? null : JSON.stringify(session.permission),
      now,
      now,
    )
    return session
  }

  #hostFor(input: NewSession): { host?: string } {
    if (input.host !== undefined) return { host: input.host }
    if (input.parentID === undefined) return {}
    const host = this.#host.get<{ host: string | null }>(input.parentID)?.host
    return host ? { host } : {}
  }

  get(id: string): SessionInfo | undefined {
    const row = this.#get.get<SessionRow>(id)
    return row && toSession(row)
  }

  /** Sessions, most recently updated first, optionally of one project, one parent or one host. */
  list(filter: { projectID?: string; parentID?: string; host?: string; limit?: number } = {}): SessionInfo[] {
    return this.#list
      .all<SessionRow>(
        filter.projectID ?? null,
        filter.parentID ?? null,
        filter.limit ?? NO_LIMIT,
        filter.host ?? null,
      )
      .map(toSession)
  }

  /** Marks the session as updated now; false when there is no such session. */
  touch(id: string, now = Date.now()): boolean {
    return this.#touch.run(now, id).changes > 0
  }

  /**
   * Deletes a session and its subagent sessions with everything recorded for them (messages, parts,
   * journal, pending asks, read ledger, todos, the agent it runs as). False when there is no such session.
   */
  remove(id: string): boolean {
    this.#flush()
    const digests = new Set<string>()
    let ids: string[] = []
    const removed = this.#db.transaction(() => {
      ids = this.#tree.all<{ id: string }>(id).map((row) => row.id)
      for (const sessionID of ids) {
        for (const row of this.#outputs.all<{ digest: string }>(sessionID)) digests.add(row.digest)
        for (const clear of this.#clear) clear.run(sessionID)
      }
      // Messages and child sessions go by ON DELETE CASCADE.
      return this.#delete.run(id).changes > 0
    })
    this.#removed(ids)
    this.#dropUnnamed(digests)
    return removed
  }

  /**
   * Drops the stored outputs no part names any more. Apart from the removal: on a shared PostgreSQL
   * store another host may name one of them at this moment (its part's foreign key then fails this
   * delete, and the output stays), which must not undo the removal.
   */
  #dropUnnamed(digests: Set<string>): void {
    if (digests.size === 0) return
    try {
      this.#db.transaction(() => {
        for (const digest of digests) this.#orphan.run(digest, digest)
      })
    } catch (error) {
      log.warn("could not drop the outputs of a removed session; they stay", { error: String(error) })
    }
  }
}

function toSession(row: SessionRow): SessionInfo {
  return {
    id: row.id,
    projectID: row.project_id,
    ...(row.host === null ? {} : { host: row.host }),
    ...(row.parent_id === null ? {} : { parentID: row.parent_id }),
    agent: row.agent,
    title: row.title,
    ...(row.permission === null ? {} : { permission: JSON.parse(row.permission) as SessionRule[] }),
    time: { created: row.time_created, updated: row.time_updated },
  }
}

/** Just the rule (a runtime rule also carries where it was written). */
function storedRule(rule: SessionRule): SessionRule {
  return { permission: rule.permission, pattern: rule.pattern, action: rule.action }
}
