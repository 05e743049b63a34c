import { logger } from "../util/log.ts"
import type { GroupCommit } from "./group-commit.ts"
import { fromRow } from "./rows.ts"
import type { Database, Statement } from "./sqlite.ts"

const log = logger("store")

/** What a file looked like when the session last read (or wrote) it. */
export interface FileStamp {
  /** Content hash, in whatever encoding the file tools use. */
  readonly hash: string
  /** `mtimeMs` of the file. */
  readonly mtime: number
  readonly size: number
}

export interface LedgerEntry extends FileStamp {
  readonly sessionID: string
  readonly path: string
  /** When it was recorded, epoch ms. */
  readonly time: number
}

interface LedgerRow {
  session_id: string
  path: string
  hash: string
  mtime: number
  size: number
  time: number
}

/** How many (session, path) stamps this process remembers having recorded. */
export const REMEMBERED_STAMPS = 4096

/**
 * The per-session read ledger: path → the stamp of the content the session has seen.
 *
 * `record` does not commit on its own: the stamp joins the journal's next group commit, which is at
 * the latest the step that finishes the call that recorded it. So a read is in the database before
 * any client is told it completed, and another process sharing the session (`toolbelt call
 * --session`) sees it; a process killed before that step never reported the read, and the lost stamp
 * only makes a later write ask for a fresh read. Reads here flush first, so this process always sees
 * its own stamps.
 */
export class ReadLedger {
  readonly #group: GroupCommit
  readonly #record: Statement
  readonly #get: Statement
  readonly #forget: Statement
  readonly #list: Statement
  /**
   * The stamp this process last recorded for a (session, path), oldest first. Reading an unchanged file
   * again records the stamp its row holds already: that write is skipped (it was a statement a read).
   * Another process can only have replaced the row with a stamp the same session saw, and only for a
   * file that changed since (a write, a delete), which gives this process a different stamp to record.
   */
  readonly #recorded = new Map<string, string>()

  constructor(db: Database, group: GroupCommit) {
    this.#group = group
    this.#record = db.prepare(
      `INSERT INTO read_ledger (session_id, path, hash, mtime, size, time) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, path) DO UPDATE SET
         hash = excluded.hash, mtime = excluded.mtime, size = excluded.size, time = excluded.time`,
    )
    this.#get = db.prepare("SELECT * FROM read_ledger WHERE session_id = ? AND path = ?")
    this.#forget = db.prepare("DELETE FROM read_ledger WHERE session_id = ? AND path = ?")
    this.#list = db.prepare("SELECT * FROM read_ledger WHERE session_id = ? ORDER BY path")
  }

  /** Records (or replaces) the stamp of `path` for the session. */
  record(sessionID: string, path: string, stamp: FileStamp, now = Date.now()): LedgerEntry {
    const key = keyOf(sessionID, path)
    const facts = factsOf(stamp)
    const entry = { sessionID, path, hash: stamp.hash, mtime: stamp.mtime, size: stamp.size, time: now }
    const known = this.#recorded.get(key)
    this.#recorded.delete(key)
    this.#recorded.set(key, facts)
    if (this.#recorded.size > REMEMBERED_STAMPS) this.#recorded.delete(this.#recorded.keys().next().value!)
    if (known === facts) return entry
    this.#group
      .defer(() => this.#record.run(sessionID, path, stamp.hash, stamp.mtime, stamp.size, now))
      .catch((error: unknown) => {
        // Not recorded: the next read of the file must write it again.
        if (this.#recorded.get(key) === facts) this.#recorded.delete(key)
        log.warn("could not record a read in the ledger", { sessionID, path, error: String(error) })
      })
    return entry
  }

  /** How many stamps this process remembers having recorded (for tests). */
  get remembered(): number {
    return this.#recorded.size
  }

  get(sessionID: string, path: string): LedgerEntry | undefined {
    this.#group.flush()
    const row = this.#get.get<LedgerRow>(sessionID, path)
    // A row gone or replaced (its session removed, or another process's stamp): the next read writes.
    const key = keyOf(sessionID, path)
    if (this.#recorded.has(key) && (!row || this.#recorded.get(key) !== factsOf(row)))
      this.#recorded.delete(key)
    return row && toEntry(row)
  }

  /** Drops the entry; false when there was none. */
  forget(sessionID: string, path: string): boolean {
    this.#recorded.delete(keyOf(sessionID, path))
    this.#group.flush()
    return this.#forget.run(sessionID, path).changes > 0
  }

  /** Forgets what this process recorded for removed sessions (their rows are gone). */
  forgetSessions(sessionIDs: readonly string[]): void {
    const prefixes = sessionIDs.map((id) => keyOf(id, ""))
    for (const key of this.#recorded.keys())
      if (prefixes.some((prefix) => key.startsWith(prefix))) this.#recorded.delete(key)
  }

  list(sessionID: string): LedgerEntry[] {
    this.#group.flush()
    return this.#list.all<LedgerRow>(sessionID).map(toEntry)
  }
}

/** What the memory of recorded stamps is keyed by: the session, a NUL, the path. */
function keyOf(sessionID: string, path: string): string {
  return `${sessionID}\u0000${path}`
}

/** A stamp as one string, to compare with the one last recorded. */
function factsOf(stamp: FileStamp): string {
  return `${stamp.hash}\u0000${stamp.mtime}\u0000${stamp.size}`
}

function toEntry(row: LedgerRow): LedgerEntry {
  return fromRow(row)
}
