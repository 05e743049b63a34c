/**
 * The store's `Database` on PostgreSQL, synchronous like the SQLite one.
 *
 * Driver: `postgres` (porsager's postgres.js), not `pg`: it has no dependencies, reconnects by itself,
 * has LISTEN/NOTIFY built in, takes `sslmode` from the URL and caches prepared statements per
 * connection. `pg` would need `pg-pool`, `pg-protocol` and friends and hand-written listener upkeep.
 *
 * The driver is asynchronous and the store's ~50 callers are not, so the driver runs in a worker
 * thread (worker.ts): each statement is posted to it, the main thread blocks in `Atomics.wait` until
 * the answer is posted, and takes it with `receiveMessageOnPort`, no event loop needed. One connection
 * per store, so `transaction(fn)` is `BEGIN` … `COMMIT` on it, with savepoints when nested. Inside a
 * transaction, statements whose answers nobody reads are held and sent with the next one whose answer
 * is needed (held.ts): a journal step costs two round trips instead of five.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads"
import type { Database, RunResult, SqlValue, Statement, Synchronous } from "../sqlite.ts"
import { runTransaction } from "../transaction.ts"
import { HeldResult, HeldStatements } from "./held.ts"
import { toPostgresPlaceholders } from "./placeholders.ts"
import {
  type Event,
  type FailureInfo,
  type Mode,
  type Reply,
  type Request,
  SIGNAL,
  type WorkerData,
} from "./protocol.ts"
import { connectionSettings } from "./url.ts"

export interface PostgresOptions {
  /** How long a statement waits for a restarting server before failing, ms. Default 15 000. */
  readonly reconnectMs?: number
  /** How long one connection attempt may take, s. Default 10. */
  readonly connectTimeoutS?: number
  /** How long the main thread waits for any one answer before giving up on the worker, ms. Default 10 min. */
  readonly answerTimeoutMs?: number
}

/** A statement's failure, with PostgreSQL's own message (the URL, if named, without its password). */
export class PostgresError extends Error {
  override readonly name = "PostgresError"
  /** SQLSTATE (`23505`), or the driver's code for a connection failure (`ECONNREFUSED`, `CONNECTION_CLOSED`). */
  readonly code: string | undefined
  readonly detail: string | undefined
  /** The connection was lost: inside a transaction, nothing of it was saved unless `unknown`. */
  readonly lost: boolean
  /** Lost under a COMMIT the server could not be asked about: it may or may not have been saved. */
  readonly unknown: boolean
  constructor(info: FailureInfo) {
    super(info.message)
    this.code = info.code
    this.detail = info.detail
    this.lost = info.lost === true
    this.unknown = info.unknown === true
  }
}

/** A listener's handle. */
export interface Listening {
  /** Stops delivering this listener's payloads (and UNLISTENs when it was the channel's last). */
  unlisten(): Promise<void>
}

/** The store's connection to PostgreSQL: the `Database` interface plus what fleets need. */
export interface PostgresDatabase extends Database {
  readonly engine: "postgres"
  /** Blocking round trips to the worker so far (each is one message, held statements and all). */
  readonly roundTrips: number
  /**
   * Calls `onPayload` on the main thread for each NOTIFY on `channel` (from any connection, this one
   * included), on a connection of its own. `onListening` is called whenever listening was established
   * again after that connection was lost: notifications sent meanwhile were missed, so look again.
   */
  listen(channel: string, onPayload: (payload: string) => void, onListening?: () => void): Promise<Listening>
  /**
   * Sends NOTIFY at once, on the listening connection (not inside this connection's transaction; to
   * notify on commit, run `SELECT pg_notify(?, ?)` inside the transaction instead).
   */
  notify(channel: string, payload: string): Promise<void>
}

/** Statements that begin or end a transaction or a savepoint: an `exec` of one is never held. */
const ENDS = /^\s*(BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE)\b/i

export function isPostgres(db: Database): db is PostgresDatabase {
  return db.engine === "postgres"
}

/** Connects (synchronously) to the database the URL names; throws with the redacted URL when it cannot. */
export function openPostgres(url: string, options: PostgresOptions = {}): PostgresDatabase {
  return new Connection(url, options)
}

interface Listener {
  readonly onPayload: (payload: string) => void
  readonly onListening: (() => void) | undefined
}

class Connection implements PostgresDatabase {
  readonly engine = "postgres" as const
  readonly path: string
  /** A COMMIT returns once PostgreSQL has it on disk (its `synchronous_commit`, on by default). */
  readonly synchronous: Synchronous = "FULL"
  readonly #worker: Worker
  readonly #signal: Int32Array
  readonly #replies: MessagePort
  readonly #events: MessagePort
  readonly #answerTimeoutMs: number
  readonly #listeners = new Map<string, Set<Listener>>()
  readonly #pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>()
  /** Statements of the open transaction not sent yet (held.ts). */
  readonly #held = new HeldStatements()
  #nextID = 1
  #roundTrips = 0
  #inTransaction = false
  #depth = 0
  #closed = false
  #dead: Error | undefined

  constructor(url: string, options: PostgresOptions) {
    const settings = connectionSettings(url)
    this.path = settings.redacted
    this.#answerTimeoutMs = options.answerTimeoutMs ?? 600_000
    const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)
    this.#signal = new Int32Array(buffer)
    const replies = new MessageChannel()
    const events = new MessageChannel()
    this.#replies = replies.port2
    this.#events = events.port2
    const data: WorkerData = {
      url: settings.url,
      ssl: settings.ssl,
      redacted: settings.redacted,
      secret: settings.secret,
      signal: buffer,
      replies: replies.port1,
      events: events.port1,
      reconnectMs: options.reconnectMs ?? 15_000,
      connectTimeoutS: options.connectTimeoutS ?? 10,
    }
    const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
    this.#worker = new Worker(new URL(`./worker${extension}`, import.meta.url), {
      workerData: data,
      transferList: [replies.port1, events.port1],
    })
    // Neither keeps the process alive: a store left open must not hang the exit.
    this.#worker.unref()
    this.#replies.unref()
    this.#events.unref()
    this.#events.on("message", (event: Event) => this.#event(event))
    try {
      // Bounded by the connect timeout: a worker that could not even start never answers.
      const connectTimeoutS = options.connectTimeoutS ?? 10
      const reply = this.#send(
        { kind: "query", sql: "SELECT 1", params: [], mode: "get" },
        (connectTimeoutS + 10) * 1000,
      )
      if (!reply.ok) throw new PostgresError(reply.error)
    } catch (error) {
      this.close()
      throw new Error(
        `Could not connect to the toolbelt store ${this.path}: ${(error as Error).message}. Check that the server runs and accepts this URL (host, port, user, password, database, sslmode).`,
        { cause: error },
      )
    }
  }

  get inTransaction(): boolean {
    return this.#inTransaction
  }

  get roundTrips(): number {
    return this.#roundTrips
  }

  /** Inside a transaction it is held (held.ts) unless it ends one; elsewhere it runs at once. */
  exec(sql: string): void {
    if (this.#inTransaction && !ENDS.test(sql)) this.#held.hold({ sql, params: [], mode: "exec" })
    else this.#query(sql, [], "exec")
  }

  prepare(sql: string): Statement {
    const text = toPostgresPlaceholders(sql)
    return {
      // Inside a transaction it is held, its count read when asked for (held.ts).
      run: (...params: SqlValue[]): RunResult => {
        if (this.#inTransaction) {
          const held = this.#held.hold({ sql: text, params, mode: "run" })
          return new HeldResult(held, () => this.#sendHeld())
        }
        // PostgreSQL has no rowid: use RETURNING for generated keys.
        return { changes: this.#query(text, params, "run").changes ?? 0, lastInsertRowid: 0 }
      },
      get: <R>(...params: SqlValue[]) => this.#query(text, params, "get").rows?.[0] as R | undefined,
      all: <R>(...params: SqlValue[]) => (this.#query(text, params, "all").rows ?? []) as R[],
    }
  }

  transaction<T>(fn: () => T): T {
    const nested = this.#depth > 0 || this.#inTransaction
    const savepoint = nested ? `toolbelt_${this.#depth}` : undefined
    const control = (sql: string, opens?: string) =>
      this.#held.hold(
        { sql, params: [], mode: "exec" },
        { control: true, ...(opens === undefined ? {} : { opens }) },
      )
    return runTransaction(fn, {
      begin: () => {
        control(savepoint ? `SAVEPOINT ${savepoint}` : "BEGIN", savepoint ?? "")
        this.#inTransaction = true
        this.#depth++
      },
      left: () => this.#depth--,
      commit: () => {
        if (!savepoint) this.#query("COMMIT", [], "exec")
        else if (this.#held.onlyControl) control(`RELEASE SAVEPOINT ${savepoint}`)
        else this.#query(`RELEASE SAVEPOINT ${savepoint}`, [], "exec")
      },
      rollback: () => this.#rollback(savepoint),
    })
  }

  #rollback(savepoint: string | undefined): void {
    // Opened by a statement still held: the server never saw the level, so dropping it is the rollback.
    if (this.#held.dropLevel(savepoint ?? "")) {
      if (!savepoint) this.#inTransaction = this.#held.size > 0
      return
    }
    if (!this.#inTransaction) return
    try {
      if (savepoint) {
        this.#held.hold({ sql: `ROLLBACK TO SAVEPOINT ${savepoint}`, params: [], mode: "exec" })
        this.#query(`RELEASE SAVEPOINT ${savepoint}`, [], "exec")
      } else this.#query("ROLLBACK", [], "exec")
    } catch {
      // The connection is gone or the transaction already ended: the original error is the report.
    }
  }

  /** Sends what is held, the last of it as the message's own statement. */
  #sendHeld(): void {
    const last = this.#held.takeLast()
    if (!last) return
    try {
      last.outcome = { changes: this.#query(last.sql, last.params, last.mode).changes ?? 0 }
    } catch (error) {
      last.outcome = { error: error as Error }
      throw error
    }
  }

  async listen(
    channel: string,
    onPayload: (payload: string) => void,
    onListening?: () => void,
  ): Promise<Listening> {
    const first = !this.#listeners.has(channel)
    const set = this.#listeners.get(channel) ?? new Set<Listener>()
    this.#listeners.set(channel, set)
    const listener: Listener = { onPayload, onListening }
    set.add(listener)
    this.#events.ref()
    try {
      if (first) await this.#async({ kind: "listen", id: 0, channel })
    } catch (error) {
      set.delete(listener)
      if (set.size === 0) this.#listeners.delete(channel)
      this.#unrefEvents()
      throw error
    }
    return {
      unlisten: async () => {
        if (!set.delete(listener)) return
        if (set.size > 0) return
        this.#listeners.delete(channel)
        this.#unrefEvents()
        if (!this.#closed) await this.#async({ kind: "unlisten", id: 0, channel })
      },
    }
  }

  notify(channel: string, payload: string): Promise<void> {
    return this.#async({ kind: "notify", id: 0, channel, payload })
  }

  /** The server checkpoints on its own: nothing to start here. */
  expectLoad(): void {}

  close(): void {
    if (this.#closed) return
    this.#closed = true
    if (!this.#dead) {
      try {
        this.#send({ kind: "close" }, 3000)
      } catch {
        // It ends below either way.
      }
    }
    this.#held.clear()
    for (const pending of this.#pending.values())
      pending.reject(new Error(`The store ${this.path} is closed.`))
    this.#pending.clear()
    this.#listeners.clear()
    this.#events.close()
    this.#replies.close()
    void this.#worker.terminate()
  }

  #unrefEvents(): void {
    if (this.#listeners.size === 0 && this.#pending.size === 0) this.#events.unref()
  }

  #async(request: Exclude<Request, { kind: "query" | "close" }>): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`The store ${this.path} is closed.`))
    const id = this.#nextID++
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#events.ref()
      this.#worker.postMessage({ ...request, id })
    })
  }

  #event(event: Event): void {
    if (event.kind === "notification") {
      for (const listener of this.#listeners.get(event.channel) ?? []) listener.onPayload(event.payload)
    } else if (event.kind === "listening") {
      for (const listener of this.#listeners.get(event.channel) ?? []) listener.onListening?.()
    } else {
      const pending = this.#pending.get(event.id)
      this.#pending.delete(event.id)
      this.#unrefEvents()
      if (!pending) return
      if (event.error) pending.reject(new PostgresError(event.error))
      else pending.resolve()
    }
  }

  /** Runs one statement, after what is held (in the same message), and returns its answer. */
  #query(sql: string, params: readonly SqlValue[], mode: Mode): Extract<Reply, { ok: true }> {
    if (this.#closed) throw new Error(`The store ${this.path} is closed.`)
    const held = this.#held.take()
    const deferred = held.map((one) => ({ sql: one.sql, params: one.params, mode: one.mode }))
    let reply: Reply
    try {
      reply = this.#send(
        { kind: "query", sql, params, mode, ...(deferred.length > 0 ? { deferred } : {}) },
        this.#answerTimeoutMs,
      )
    } catch (error) {
      this.#held.settle(held, undefined, error as Error)
      throw error
    }
    this.#inTransaction = reply.inTransaction
    const error = reply.ok ? undefined : new PostgresError(reply.error)
    this.#held.settle(held, reply.counts, error)
    if (!reply.ok) throw error
    return reply
  }

  /** Posts a request and blocks until the worker answers. */
  #send(request: Request, timeoutMs: number): Reply {
    if (this.#dead) throw this.#dead
    this.#roundTrips++
    Atomics.store(this.#signal, SIGNAL, 0)
    this.#worker.postMessage(request)
    const deadline = Date.now() + timeoutMs
    while (Atomics.load(this.#signal, SIGNAL) === 0) {
      const left = deadline - Date.now()
      if (left <= 0 || Atomics.wait(this.#signal, SIGNAL, 0, left) === "timed-out") {
        this.#dead = new Error(
          `The store ${this.path} did not answer within ${Math.round(timeoutMs / 1000)} s; its worker was stopped. Reopen the store.`,
        )
        void this.#worker.terminate()
        throw this.#dead
      }
    }
    const reply = receiveMessageOnPort(this.#replies)?.message as Reply | undefined
    if (!reply) {
      this.#dead = new Error(`The worker holding the store ${this.path} connection failed. Reopen the store.`)
      void this.#worker.terminate()
      throw this.#dead
    }
    return reply
  }
}
