import { closeSync, mkdirSync, openSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { Checkpointer } from "./checkpointer.ts"
import { nodeSqlite, unsupportedNodeMessage } from "./node-sqlite.ts"
import { runTransaction } from "./transaction.ts"

/** A value SQLite binds or returns (booleans are not bound: store 0/1). */
export type SqlValue = null | number | bigint | string | Uint8Array

export type Row = Record<string, unknown>

export interface RunResult {
  readonly changes: number
  readonly lastInsertRowid: number | bigint
}

/** A prepared statement; parameters are positional (`?`). */
export interface Statement {
  run(...params: SqlValue[]): RunResult
  /** The first row, as `R` (unchecked), or undefined when there is none. */
  get<R = Row>(...params: SqlValue[]): R | undefined
  all<R = Row>(...params: SqlValue[]): R[]
}

/**
 * How hard a commit waits for the disk (`PRAGMA synchronous`; the store always runs in WAL mode).
 *
 * - `NORMAL`, the default. `COMMIT` returns once the transaction's pages are appended to the WAL file,
 *   that is, in the kernel's page cache: from then on the commit survives any death of the process
 *   (SIGKILL, OOM killer, a crash, a closed terminal), because the kernel writes the file back
 *   whether the process lives or not. The WAL is fsynced only at checkpoints, so an OS crash or a
 *   power cut may lose the last commits, never the database's consistency: WAL frames carry
 *   checksums and recovery keeps a whole prefix of the transactions.
 * - `FULL`: `COMMIT` also fsyncs the WAL, so the commit survives a power cut too.
 *
 * Why NORMAL: the journal exists so that a killed or crashed agent process leaves a record that
 * reopens consistent and never re-runs a finished call; that is the guarantee the crash test checks
 * (a real child process killed with SIGKILL). Power-loss durability per step costs an fsync per
 * commit, which on this machine is 5–10× slower (bench/journal.bench.ts prints both), and the side
 * effects being journalled (file writes, commands) are not fsynced either, so after a power cut the
 * journal could not be more durable than the work it records. Hosts that want it pass `FULL`; group
 * commit (group-commit.ts) then shares one fsync among the calls in flight.
 */
export type Synchronous = "NORMAL" | "FULL"

export interface OpenOptions {
  /** Default `NORMAL`: a commit survives the death of the process (see `Synchronous`). */
  readonly synchronous?: Synchronous
  /** How long a writer waits for another process's write lock, in ms. Default 5000. */
  readonly busyTimeout?: number
  /**
   * Checkpoint the WAL from a worker thread once this connection commits often (checkpointer.ts).
   * Default true for a file; the checkpointer's own connection passes false.
   */
  readonly backgroundCheckpoints?: boolean
}

/**
 * One connection: the small synchronous interface the store is written against, on SQLite (node:sqlite or
 * bun:sqlite, here) or PostgreSQL (postgres/database.ts). SQL given to it must run on both: see
 * migrations.ts for what differs.
 */
export interface Database {
  readonly engine: "sqlite" | "postgres"
  /** The file, or `:memory:`; for PostgreSQL the URL without its password. */
  readonly path: string
  readonly synchronous: Synchronous
  /** Whether a transaction is open on this connection. */
  readonly inTransaction: boolean
  /** Runs one or more statements that take no parameters. */
  exec(sql: string): void
  prepare(sql: string): Statement
  /**
   * Runs `fn` in a transaction: `BEGIN IMMEDIATE` (the write lock is taken up front, so two processes
   * never deadlock upgrading a read), `COMMIT` when it returns, `ROLLBACK` when it throws (and the
   * error is rethrown). A nested call runs in a savepoint, so an inner throw undoes only the inner
   * work if the outer function catches it. `fn` must be synchronous: a promise is refused.
   */
  transaction<T>(fn: () => T): T
  /**
   * A long-lived host (serve, an MCP server) is about to take calls: starts now, while the process is
   * idle, what a connection that commits often would start under load (SQLite's background
   * checkpointer). Nothing on PostgreSQL.
   */
  expectLoad(): void
  /** Closes the connection; later calls are no-ops. */
  close(): void
}

/**
 * WAL pages after which a commit checkpoints (SQLite's default is 1000). A checkpoint fsyncs the WAL
 * and the database whatever it copies, so it costs milliseconds however small; a call that stores a
 * 40 KB output appends about 25 pages, so at 1000 pages one call in 40 paid for one, about a third of
 * all journal time (bench/journal.bench.ts). 4000 pages (16 MiB of WAL) pays that fixed cost a
 * quarter as often, and copies a page rewritten by many calls once; the WAL index still fits one of
 * SQLite's 4096-frame hash blocks, so reads do not slow down.
 */
export const WAL_CHECKPOINT_PAGES = 4000

/**
 * The connection's own autocheckpoint while a background checkpointer works for it (checkpointer.ts).
 * The worker copies frames shortly after they are committed, but a WAL restarts only when a write
 * begins with every frame copied, which a steady stream of commits never lets happen; the writer's
 * checkpoint then completes the work (cheaply: the worker has copied and synced nearly all of it) and
 * the WAL restarts. At 4000 pages that happened every ~150 calls storing 40 KB outputs and still cost
 * a third of commit time; at 16384 (64 MiB of WAL at most) a quarter as often.
 */
export const BACKGROUND_WAL_CHECKPOINT_PAGES = 16384

/**
 * How long a statement waits for another process's write lock before failing with "database is locked".
 * Many toolbelt processes share one store (parallel `toolbelt call`s, several MCP servers). SQLite's
 * waiters poll, so under heavy contention one can starve while others get through: 200 processes
 * starting at once on two busy cores kept some waiting past 15 s. A call whose record cannot be written
 * does not run, so the wait is generous.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 60_000

/** Another process kept the store's write lock past the busy timeout (`cause`: SQLite's own error). */
export class StoreBusyError extends Error {
  override readonly name = "StoreBusyError"
}

/**
 * SQLite's busy error (another connection kept the write lock past the busy timeout), said plainly;
 * `outcome` says what did not happen (opening the store: nothing was run; a write: that write). An
 * error said so already is said again for this outcome.
 */
export function describeBusy(
  error: unknown,
  path: string,
  timeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
  outcome = "so nothing was run",
): unknown {
  const raw = error instanceof StoreBusyError ? error.cause : error
  if (!isBusy(raw)) return error
  return new StoreBusyError(
    `The toolbelt store ${path} stayed locked by other toolbelt processes for over ${timeoutMs / 1000} s, ${outcome}. Retry the call; if many processes share the store at once, fewer at a time (or separate TOOLBELT_DATA_DIRs) will help.`,
    { cause: raw },
  )
}

const WRITE_NOT_MADE = "so this write to it was not made"

/** Opens (creating when needed) a SQLite database with toolbelt's pragmas. */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  const synchronous = options.synchronous ?? "NORMAL"
  if (path !== ":memory:") createFile(path)
  const native = connect(path)
  const busyTimeout = Math.max(0, Math.trunc(options.busyTimeout ?? DEFAULT_BUSY_TIMEOUT_MS))
  try {
    native.exec(`PRAGMA busy_timeout = ${busyTimeout}`)
    switchToWal(native, busyTimeout)
    native.exec(`PRAGMA synchronous = ${synchronous}`)
    native.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`)
    native.exec("PRAGMA foreign_keys = ON")
  } catch (error) {
    native.close()
    throw error
  }
  const checkpointer =
    path !== ":memory:" && options.backgroundCheckpoints !== false
      ? new Checkpointer(path, {
          onRunning: (running) => {
            const pages = running ? BACKGROUND_WAL_CHECKPOINT_PAGES : WAL_CHECKPOINT_PAGES
            try {
              native.exec(`PRAGMA wal_autocheckpoint = ${pages}`)
            } catch {
              // Closed meanwhile: nothing left to bound.
            }
          },
        })
      : undefined
  return new Connection(path, synchronous, native, busyTimeout, checkpointer)
}

/**
 * `PRAGMA journal_mode = WAL`. Switching a new database to WAL takes an exclusive lock. When two
 * connections that both hold a read lock on the file want it, SQLite answers one of them "database is
 * locked" at once, without its busy timeout (waiting could deadlock): 50 processes opening a fresh store
 * at once (parallel `toolbelt call`s on a new data dir) met it once in a CI run. So the switch is tried
 * again every few ms until the busy timeout. Once the file is in WAL mode (it stays so), the pragma
 * takes no lock.
 */
export function switchToWal(native: { exec(sql: string): void }, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs
  for (let attempt = 0; ; attempt++) {
    try {
      native.exec("PRAGMA journal_mode = WAL")
      return
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error
      // Up to 50 ms, with jitter, so processes that met at once do not meet again.
      Atomics.wait(SLEEP, 0, 0, Math.min(50, 2 ** Math.min(attempt, 5)) * (0.5 + Math.random()))
    }
  }
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4))

function isBusy(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message)
}

/** The parent directory (private to the user) and the file (mode 0600) before SQLite creates it. */
function createFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // "a" creates without truncating; SQLite treats an empty file as a new database. The WAL and
  // shared-memory files SQLite makes next to it copy this file's permissions.
  closeSync(openSync(path, "a", 0o600))
}

class Connection implements Database {
  readonly engine = "sqlite" as const
  readonly path: string
  readonly synchronous: Synchronous
  readonly #native: NativeDatabase
  readonly #controls = new Map<string, NativeStatement>()
  readonly #checkpointer: Checkpointer | undefined
  /** A lock another process kept past the busy timeout, said plainly (`describeBusy`). */
  readonly #described: (error: unknown) => unknown
  #depth = 0
  #closed = false

  constructor(
    path: string,
    synchronous: Synchronous,
    native: NativeDatabase,
    busyTimeout: number,
    checkpointer?: Checkpointer,
  ) {
    this.path = path
    this.synchronous = synchronous
    this.#native = native
    this.#checkpointer = checkpointer
    this.#described = (error) =>
      path === ":memory:" ? error : describeBusy(error, path, busyTimeout, WRITE_NOT_MADE)
  }

  get inTransaction(): boolean {
    // node:sqlite before 22.16 cannot tell; then only transactions begun here are known.
    return this.#native.inTransaction() ?? this.#depth > 0
  }

  exec(sql: string): void {
    this.#native.exec(sql)
  }

  prepare(sql: string): Statement {
    return wrap(this.#native.prepare(sql), this.#described)
  }

  transaction<T>(fn: () => T): T {
    // A savepoint inside any open transaction, ours or one begun by hand with exec().
    const nested = this.#depth > 0 || this.inTransaction
    const savepoint = nested ? `toolbelt_${this.#depth}` : undefined
    const result = runTransaction(fn, {
      begin: () => {
        try {
          this.#control(savepoint ? `SAVEPOINT ${savepoint}` : "BEGIN IMMEDIATE")
        } catch (error) {
          throw this.#described(error)
        }
        this.#depth++
      },
      left: () => this.#depth--,
      commit: () => this.#control(savepoint ? `RELEASE ${savepoint}` : "COMMIT"),
      rollback: () => this.#rollback(savepoint),
    })
    // The checkpointer counts commits to decide when the WAL is worth copying from its thread.
    if (!savepoint) this.#checkpointer?.committed()
    return result
  }

  /** Undoes the transaction or savepoint; the caller rethrows the error that caused it. */
  #rollback(savepoint: string | undefined): void {
    // Some errors (disk full, I/O) make SQLite roll the whole transaction back by itself.
    if (this.#native.inTransaction() === false) return
    try {
      if (savepoint) {
        this.#control(`ROLLBACK TO ${savepoint}`)
        this.#control(`RELEASE ${savepoint}`)
      } else this.#control("ROLLBACK")
    } catch {
      // Nothing left to undo; the original error is the one to report.
    }
  }

  /** Transaction control, prepared once per text: a journal step runs several of these. */
  #control(sql: string): void {
    let statement = this.#controls.get(sql)
    if (!statement) {
      statement = this.#native.prepare(sql)
      this.#controls.set(sql, statement)
    }
    statement.run()
  }

  expectLoad(): void {
    if (!this.#closed) this.#checkpointer?.start()
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#checkpointer?.close()
    this.#native.close()
  }
}

/**
 * A driver's statement as `Statement`. A write outside a transaction takes the write lock itself: one
 * another process kept past the busy timeout is said as `described` says it (the store's first write
 * is often a call's, since opening one writes nothing: owners.ts).
 */
function wrap(statement: NativeStatement, described: (error: unknown) => unknown): Statement {
  return {
    run(...params) {
      let result: ReturnType<NativeStatement["run"]>
      try {
        result = statement.run(...params)
      } catch (error) {
        throw described(error)
      }
      return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid }
    },
    get<R>(...params: SqlValue[]) {
      // bun:sqlite returns null for "no row", node:sqlite undefined.
      return (statement.get(...params) ?? undefined) as R | undefined
    },
    all<R>(...params: SqlValue[]) {
      return statement.all(...params) as R[]
    },
  }
}

// ---- drivers -------------------------------------------------------------------------------------

interface NativeStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  get(...params: SqlValue[]): unknown
  all(...params: SqlValue[]): unknown[]
}

interface NativeDatabase {
  exec(sql: string): void
  prepare(sql: string): NativeStatement
  /** Undefined when the driver cannot tell (node:sqlite before 22.16). */
  inTransaction(): boolean | undefined
  close(): void
}

/** What we use of bun:sqlite (no types for it are installed). */
interface BunDatabase {
  readonly inTransaction: boolean
  exec(sql: string): unknown
  prepare(sql: string): NativeStatement
  close(): void
}

type Connect = (path: string) => NativeDatabase

/** Which runtime's SQLite: chosen once, when this module loads. */
export const driver: "bun:sqlite" | "node:sqlite" = process.versions.bun ? "bun:sqlite" : "node:sqlite"

// Loaded synchronously, without a top-level await: the command line's build is CommonJS.
const connect: Connect = loadDriver()

function loadDriver(): Connect {
  if (driver === "bun:sqlite") {
    // Through a variable, so neither Node nor a bundler ever tries to resolve it.
    const specifier = "bun:sqlite"
    const bun = createRequire(import.meta.url)(specifier) as {
      Database: new (path: string, options: { create: boolean }) => BunDatabase
    }
    return (path) => {
      const db = new bun.Database(path, { create: true })
      return {
        exec: (sql) => void db.exec(sql),
        prepare: (sql) => db.prepare(sql),
        inTransaction: () => db.inTransaction,
        close: () => db.close(),
      }
    }
  }
  // node-sqlite.ts loaded it (without Node 22's experimental warning), or refused this Node in one line.
  if (!nodeSqlite) throw new Error(unsupportedNodeMessage())
  const { DatabaseSync } = nodeSqlite
  return (path) => {
    const db = new DatabaseSync(path)
    return {
      exec: (sql) => db.exec(sql),
      prepare: (sql) => db.prepare(sql) as NativeStatement,
      inTransaction: () => (db as { isTransaction?: boolean }).isTransaction,
      close: () => db.close(),
    }
  }
}
