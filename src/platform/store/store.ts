import { join } from "node:path"
import { SqliteApprovalStore } from "./approvals.ts"
import { GroupCommit } from "./group-commit.ts"
import { Journal } from "./journal.ts"
import { Messages } from "./messages.ts"
import { migrate } from "./migrations.ts"
import { Owners } from "./owners.ts"
import { PartRows, Parts } from "./parts.ts"
import { openPostgres, type PostgresOptions } from "./postgres/database.ts"
import { isStoreUrl } from "./postgres/url.ts"
import { ReadLedger } from "./read-ledger.ts"
import { SessionAgents } from "./session-agents.ts"
import { SessionSeen } from "./session-seen.ts"
import { Sessions } from "./sessions.ts"
import { type Database, describeBusy, openDatabase, type Synchronous } from "./sqlite.ts"
import { Todos } from "./todos.ts"

/** The store's file name inside the data dir (DESIGN.md "Data"). */
export const STORE_FILE = "toolbelt.db"

export function storePath(dataDir: string): string {
  return join(dataDir, STORE_FILE)
}

/**
 * Where the store lives: SQLite in the data dir (the surfaces pass `defaultDataDir()`) or an exact file,
 * or a PostgreSQL database (`postgres://` or `postgresql://` URL; TLS settings such as `sslmode` and
 * `sslrootcert` in its query).
 */
export type StoreLocation =
  | { readonly dataDir: string; readonly path?: undefined; readonly url?: undefined }
  | { readonly path: string; readonly dataDir?: undefined; readonly url?: undefined }
  | { readonly url: string; readonly dataDir?: undefined; readonly path?: undefined }

export type StoreOptions = StoreLocation & {
  /** SQLite: see `Synchronous` in sqlite.ts; default `NORMAL`. */
  readonly synchronous?: Synchronous
  /** SQLite: how long to wait for another process's write lock, ms. */
  readonly busyTimeout?: number
  /** PostgreSQL: reconnection and timeouts. */
  readonly postgres?: PostgresOptions
  /** The clock of journal entries (tests). */
  readonly now?: () => number
}

/** toolbelt's store: one SQLite file or one PostgreSQL database, its repositories, and the call journal. */
export interface Store {
  /** The SQLite file, or the PostgreSQL URL without its password. */
  readonly path: string
  /** The connection, for what the repositories do not cover (and `db.transaction` across them). */
  readonly db: Database
  readonly sessions: Sessions
  readonly messages: Messages
  readonly parts: Parts
  readonly approvals: SqliteApprovalStore
  readonly readLedger: ReadLedger
  /** What each session has been shown once (instruction files). */
  readonly seen: SessionSeen
  readonly todos: Todos
  /** The agent each session runs as now, once set (plan mode). */
  readonly sessionAgents: SessionAgents
  readonly journal: Journal
  /** Closes the store; open calls it leaves become recoverable by the next `journal.recover()`. */
  close(): void
  [Symbol.dispose](): void
}

/**
 * Opens the store.
 * 1. Opens the SQLite file (creating the data dir with mode 0700), WAL, the chosen `synchronous`; or
 *    connects to the PostgreSQL database the URL names (postgres/database.ts).
 * 2. Migrates the schema to the newest version (`SchemaTooNewError` for a newer database).
 * 3. Registers this store as an owner, so start-up recovery elsewhere leaves its live calls alone.
 * Call `store.journal.recover()` at start-up to close calls a crashed process left open.
 */
export function openStore(options: StoreOptions): Store {
  if (options.path === undefined && options.dataDir === undefined && options.url === undefined) {
    throw new TypeError("openStore() needs { dataDir }, { path } or { url }.")
  }
  if (options.url !== undefined && !isStoreUrl(options.url)) {
    throw new TypeError(
      "openStore({ url }) takes a postgres:// or postgresql:// URL; give a SQLite file as { path }.",
    )
  }
  const file = options.url === undefined ? (options.path ?? storePath(options.dataDir!)) : undefined
  let db: Database
  try {
    db =
      file === undefined
        ? openPostgres(options.url!, options.postgres)
        : openDatabase(file, {
            ...(options.synchronous ? { synchronous: options.synchronous } : {}),
            ...(options.busyTimeout === undefined ? {} : { busyTimeout: options.busyTimeout }),
          })
  } catch (error) {
    throw file === undefined ? error : describeBusy(error, file, options.busyTimeout)
  }
  const path = db.path
  let owners: Owners
  try {
    migrate(db)
    owners = new Owners(db)
  } catch (error) {
    db.close()
    throw describeBusy(error, path, options.busyTimeout)
  }
  const rows = new PartRows(db)
  const group = new GroupCommit(db)
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    try {
      group.close()
      owners.release()
    } finally {
      db.close()
    }
  }
  const readLedger = new ReadLedger(db, group)
  return {
    path,
    db,
    sessions: new Sessions(
      db,
      () => group.flush(),
      (ids) => readLedger.forgetSessions(ids),
    ),
    messages: new Messages(db),
    parts: new Parts(
      db,
      rows,
      () => owners.stamp(),
      () => group.flush(),
    ),
    approvals: new SqliteApprovalStore(db),
    readLedger,
    seen: new SessionSeen(db, group),
    todos: new Todos(db),
    sessionAgents: new SessionAgents(db),
    journal: new Journal(db, rows, owners, group, options.now),
    close,
    [Symbol.dispose]: close,
  }
}
