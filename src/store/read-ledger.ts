import type { Database, Statement } from "./sqlite.ts"

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

/** The per-session read ledger: path → the stamp of the content the session has seen. */
export class ReadLedger {
  readonly #record: Statement
  readonly #get: Statement
  readonly #forget: Statement
  readonly #list: Statement

  constructor(db: Database) {
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
    this.#record.run(sessionID, path, stamp.hash, stamp.mtime, stamp.size, now)
    return { sessionID, path, hash: stamp.hash, mtime: stamp.mtime, size: stamp.size, time: now }
  }

  get(sessionID: string, path: string): LedgerEntry | undefined {
    const row = this.#get.get<LedgerRow>(sessionID, path)
    return row && toEntry(row)
  }

  /** Drops the entry; false when there was none. */
  forget(sessionID: string, path: string): boolean {
    return this.#forget.run(sessionID, path).changes > 0
  }

  list(sessionID: string): LedgerEntry[] {
    return this.#list.all<LedgerRow>(sessionID).map(toEntry)
  }
}

function toEntry(row: LedgerRow): LedgerEntry {
  return {
    sessionID: row.session_id,
    path: row.path,
    hash: row.hash,
    mtime: row.mtime,
    size: row.size,
    time: row.time,
  }
}
