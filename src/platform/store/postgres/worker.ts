/**
 * The PostgreSQL worker: holds the store's connection and runs each statement the main thread sends
 * (database.ts), answering through the reply port and the shared signal. It also keeps a second
 * connection for LISTEN/NOTIFY, relistening after that connection is lost.
 *
 * What it adds to the driver:
 * - a transaction's fate: the connection lost inside one fails the transaction (every statement up to
 *   its end fails saying so) instead of letting the driver reconnect and go on outside it;
 * - a COMMIT whose connection was lost is resolved by asking the server whether its transaction
 *   committed (`resolveCommit`), so the caller learns "saved" or "nothing saved", rarely "unknown";
 * - a statement outside a transaction whose connection was lost is sent again once, after waiting
 *   (up to `reconnectMs`) for a restarting server to accept connections again;
 * - rows typed as SQLite gives them: BIGINT as a number where it is a safe integer.
 */
import { setTimeout as sleep } from "node:timers/promises"
import type { ConnectionOptions } from "node:tls"
import { workerData as data, parentPort } from "node:worker_threads"
import postgres from "postgres"
import {
  ANSWERED,
  type Event,
  type FailureInfo,
  type Query,
  type Reply,
  type Request,
  SIGNAL,
  type WorkerData,
} from "./protocol.ts"
import type { TlsSetting } from "./url.ts"

const settings = data as WorkerData
const signal = new Int32Array(settings.signal)

/** SQLSTATEs and driver codes that mean the connection is gone (class 08, shutdowns) or was never made. */
const LOST =
  /^(08|57P0[123]|CONNECTION_|CONNECT_TIMEOUT|ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ENOENT)/
/** Of those, the ones where nothing reached the server: trying again cannot run the statement twice. */
const NOT_CONNECTED =
  /^(57P03|CONNECT_TIMEOUT|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ENOENT)/

function tls(setting: TlsSetting): boolean | "prefer" | "require" | ConnectionOptions {
  if (typeof setting !== "object") return setting
  const { skipHostCheck, ...options } = setting
  return skipHostCheck ? { ...options, checkServerIdentity: () => undefined } : options
}

const int8 = {
  to: 20,
  from: [20],
  serialize: (value: unknown) => String(value),
  parse: (text: string) => {
    const value = Number(text)
    return Number.isSafeInteger(value) ? value : BigInt(text)
  },
}

const base = {
  ssl: tls(settings.ssl),
  connect_timeout: settings.connectTimeoutS,
  fetch_types: false,
  // A connection the driver retires mid-transaction would end the transaction: never retire it.
  max_lifetime: null,
  onnotice: () => {},
  types: { int8 },
  connection: { application_name: "toolbelt" },
} as const

/** Whether a transaction is open on the store's connection. */
let inTransaction = false
/** Set when the connection was lost inside the open transaction: what its remaining statements fail with. */
let broken: FailureInfo | undefined
/** Once connected, a refused connection is a server restarting: worth waiting for. */
let connected = false
let closing = false

/** The store's connection: one driver instance, replaced by `renew()` whenever its connection is lost. */
let sql = open()

function open(): postgres.Sql {
  const instance: postgres.Sql = postgres(settings.url, {
    ...base,
    max: 1,
    onclose: () => {
      if (instance === sql && inTransaction && !broken) broken = lostInTransaction(undefined)
    },
  })
  return instance
}

/**
 * After a lost connection, a fresh driver instance for what comes next. postgres.js (3.4) forgets a
 * statement sent between its socket's `error` and `close` events (the close after an error rejects
 * nothing, the error already did): sent again on the same instance right after the error, a
 * statement could wait forever, and the next connection could hand its answer to the wrong statement.
 */
function renew(): void {
  const old = sql
  sql = open()
  old.end({ timeout: 0 }).catch(() => {})
}

function lostInTransaction(cause: FailureInfo | undefined): FailureInfo {
  return {
    message: `The database connection to ${settings.redacted} was lost during a transaction, so the transaction failed and nothing of it was saved${cause ? ` (${cause.message})` : ""}. Retry the operation.`,
    code: cause?.code ?? "CONNECTION_LOST",
    lost: true,
  }
}

/** A statement given up on after waiting `reconnectMs` for the server: it was not run. */
function unreachable(cause: FailureInfo): FailureInfo {
  return {
    ...cause,
    message: `The database ${settings.redacted} could not be reached for ${Math.round(settings.reconnectMs / 1000)} s (${cause.message}), so the statement was not run. Check that the server is running and reachable; the operation can be retried once it is.`,
  }
}

function describe(error: unknown): FailureInfo {
  const e = error as { message?: unknown; code?: unknown; detail?: unknown; errno?: unknown }
  const code = typeof e.code === "string" ? e.code : typeof e.errno === "string" ? e.errno : undefined
  const message = clean(typeof e.message === "string" ? e.message : String(error))
  return {
    message,
    ...(code ? { code } : {}),
    ...(typeof e.detail === "string" ? { detail: clean(e.detail) } : {}),
    ...(code && LOST.test(code) ? { lost: true } : {}),
  }
}

/** A driver message never quotes the password today; should one ever, it is blanked here. */
function clean(text: string): string {
  return settings.secret ? text.split(settings.secret).join("***") : text
}

type Control = "begin" | "end" | "savepoint" | undefined

function control(text: string): Control {
  const head = /^\s*([a-z]+)(\s+[a-z]+)?/i.exec(text)
  if (!head) return undefined
  const word = head[1]!.toUpperCase()
  if (word === "BEGIN" || (word === "START" && /TRANSACTION/i.test(head[2] ?? ""))) return "begin"
  if (word === "COMMIT" || word === "END" || word === "ABORT") return "end"
  if (word === "ROLLBACK") return /^\s*TO\b/i.test(head[2] ?? "") ? "savepoint" : "end"
  if (word === "SAVEPOINT" || word === "RELEASE") return "savepoint"
  return undefined
}

function execute(request: Query) {
  if (request.mode === "exec") return sql.unsafe(request.sql)
  return sql.unsafe(request.sql, request.params as postgres.ParameterOrJSON<never>[], { prepare: true })
}

/**
 * A request: its deferred statements one after another, then its own; the first failure is the answer
 * (what follows it is not run). Each statement goes through `query`, so a transaction's fate and the
 * resending are the same as when each came in a message of its own.
 */
async function request(request: Extract<Request, { kind: "query" }>): Promise<Reply> {
  const counts: number[] = []
  const deferred = request.deferred ?? []
  // A COMMIT learns its transaction's id first (pipelined with the statement before it), so that a
  // connection lost under the COMMIT itself can be resolved by asking the server afterwards.
  const opened = inTransaction || deferred.some((statement) => control(statement.sql) === "begin")
  const commit = opened && !broken && /^\s*(COMMIT|END)\b/i.test(request.sql)
  let xid = commit && deferred.length === 0 ? transactionID() : undefined
  for (const [index, statement] of deferred.entries()) {
    const pending = query(statement)
    if (commit && index === deferred.length - 1) xid = transactionID()
    const reply = await pending
    if (!reply.ok) return { ...reply, counts }
    counts.push(reply.changes ?? 0)
  }
  // Learnt before the COMMIT goes out: an answer still on its way when the connection drops is lost.
  const reply = await query(request, xid && { xid: await xid })
  return counts.length > 0 ? { ...reply, counts } : reply
}

/** The open transaction's id, null when it wrote nothing (none assigned), undefined when not learnt. */
async function transactionID(): Promise<string | null | undefined> {
  try {
    const [row] = await sql.unsafe("SELECT CAST(txid_current_if_assigned() AS text) AS xid")
    return (row?.xid as string | null | undefined) ?? null
  } catch {
    return undefined
  }
}

/**
 * The connection was lost under a COMMIT: whether it committed is asked of the server once it can be
 * reached again (`txid_status`), for up to `reconnectMs`. Committed: the COMMIT's answer is success.
 * Aborted (or it wrote nothing): nothing was saved, and the caller may run the transaction again.
 * Only when the server cannot tell in time is the outcome reported unknown (`unknown: true`).
 */
async function resolveCommit(xid: string | null | undefined, cause: FailureInfo): Promise<Reply> {
  const unknown = (why: string): Reply => ({
    ok: false,
    error: {
      message: `The database connection to ${settings.redacted} was lost while the transaction committed, and ${why}, so whether it was saved is unknown (${cause.message}). Read back what it wrote before writing it again.`,
      code: cause.code ?? "CONNECTION_LOST",
      lost: true,
      unknown: true,
    },
    inTransaction: false,
  })
  if (xid === null) return { ok: true, changes: 0, inTransaction: false }
  if (xid === undefined || !/^\d+$/.test(xid)) return unknown("its transaction id was not learnt")
  const deadline = Date.now() + settings.reconnectMs
  while (Date.now() <= deadline) {
    try {
      const [row] = await sql.unsafe(`SELECT txid_status(${xid}) AS status`)
      const status = row?.status as string | null | undefined
      if (status === "committed") return { ok: true, changes: 0, inTransaction: false }
      if (status === "aborted") return { ok: false, error: lostInTransaction(cause), inTransaction: false }
      if (status !== "in progress") return unknown("the server no longer knows the transaction")
      // The cut backend is still finishing it: ask again in a moment.
    } catch (error) {
      if (!describe(error).lost) return unknown(`asking the server failed (${describe(error).message})`)
      renew()
    }
    await sleep(100)
  }
  return unknown(`the server could not be asked within ${Math.round(settings.reconnectMs / 1000)} s`)
}

async function query(request: Query, commit?: { xid: string | null | undefined }): Promise<Reply> {
  const kind = control(request.sql)
  if (broken) {
    const error = broken
    if (kind === "end") {
      inTransaction = false
      broken = undefined
      // ROLLBACK of a transaction the lost connection already ended: done, as asked.
      if (/^\s*(ROLLBACK|ABORT)/i.test(request.sql)) return { ok: true, changes: 0, inTransaction }
    }
    return { ok: false, error, inTransaction }
  }
  const wasInTransaction = inTransaction
  let resent = false
  const deadline = Date.now() + settings.reconnectMs
  for (;;) {
    try {
      const result = await execute(request)
      connected = true
      if (kind === "begin") inTransaction = true
      else if (kind === "end") inTransaction = false
      const rows =
        request.mode === "all" ? Array.from(result) : request.mode === "get" ? result.slice(0, 1) : undefined
      return {
        ok: true,
        ...(rows ? { rows: rows as Record<string, unknown>[] } : {}),
        changes: result.count ?? 0,
        inTransaction,
      }
    } catch (error) {
      const info = describe(error)
      if (kind === "end") inTransaction = false
      if (!info.lost) return { ok: false, error: info, inTransaction }
      renew()
      if (wasInTransaction && kind === "end" && commit) {
        inTransaction = false
        broken = undefined
        return resolveCommit(commit.xid, info)
      }
      if (wasInTransaction) {
        // The driver reconnects by itself; the transaction, though, died with the connection.
        broken = kind === "end" ? undefined : lostInTransaction(info)
        inTransaction = kind !== "end"
        return { ok: false, error: broken ?? lostInTransaction(info), inTransaction }
      }
      if (!connected) return { ok: false, error: info, inTransaction }
      // Nothing reached the server, or only a BEGIN whose connection (and so transaction) is gone:
      // waiting for a restarting server and trying again cannot run anything twice.
      const harmless = kind === "begin" || NOT_CONNECTED.test(info.code ?? "")
      if (Date.now() > deadline)
        return { ok: false, error: harmless ? unreachable(info) : info, inTransaction }
      if (harmless) {
        await sleep(200)
        continue
      }
      if (resent) return { ok: false, error: info, inTransaction }
      resent = true
    }
  }
}

// ---- LISTEN / NOTIFY, on a connection of their own ------------------------------------------------

const events = settings.events
const channels = new Set<string>()
let listener: postgres.Sql | undefined
let relistening = false

function post(event: Event): void {
  events.postMessage(event)
}

function listenSql(): postgres.Sql {
  // `onnotify` is the driver's (its types leave it out): every NotificationResponse on this connection.
  const options = {
    ...base,
    max: 1,
    onnotify: (channel: string, payload: string) => {
      if (channels.has(channel)) post({ kind: "notification", channel, payload })
    },
    onclose: () => {
      if (!closing && channels.size > 0) void relisten()
    },
  }
  listener ??= postgres(settings.url, options as unknown as postgres.Options<typeof base.types>)
  return listener
}

const identifier = (name: string) => `"${name.replace(/"/g, '""')}"`

/** After the listening connection was lost: LISTEN again on every channel, until the server takes it. */
async function relisten(): Promise<void> {
  if (relistening) return
  relistening = true
  try {
    for (let delay = 100; !closing; delay = Math.min(delay * 2, 2000)) {
      try {
        for (const channel of channels) await listenSql().unsafe(`LISTEN ${identifier(channel)}`)
        for (const channel of channels) post({ kind: "listening", channel })
        return
      } catch {
        await sleep(delay)
      }
    }
  } finally {
    relistening = false
  }
}

async function asyncRequest(request: Exclude<Request, { kind: "query" | "close" }>): Promise<void> {
  try {
    if (request.kind === "listen") {
      channels.add(request.channel)
      await listenSql().unsafe(`LISTEN ${identifier(request.channel)}`)
    } else if (request.kind === "unlisten") {
      channels.delete(request.channel)
      if (listener) await listener.unsafe(`UNLISTEN ${identifier(request.channel)}`)
    } else {
      await listenSql().unsafe("SELECT pg_notify($1, $2)", [request.channel, request.payload])
    }
    post({ kind: "done", id: request.id })
  } catch (error) {
    if (request.kind === "listen") channels.delete(request.channel)
    post({ kind: "done", id: request.id, error: describe(error) })
  }
}

// ---- the loop -------------------------------------------------------------------------------------

/** The statement being answered: each gets one answer (an uncaught driver error may answer it first). */
let current = 0
let answered = 0

function answer(reply: Reply, id = current): void {
  if (id !== current || answered === id) return
  answered = id
  settings.replies.postMessage(reply)
  Atomics.store(signal, SIGNAL, ANSWERED)
  Atomics.notify(signal, SIGNAL)
}

async function close(): Promise<void> {
  closing = true
  await Promise.allSettled([sql.end({ timeout: 1 }), listener?.end({ timeout: 1 })])
  answer({ ok: true, inTransaction: false })
}

parentPort!.on("message", (message: Request) => {
  if (message.kind === "query") {
    const id = ++current
    request(message).then(
      (reply) => answer(reply, id),
      (error: unknown) => answer({ ok: false, error: describe(error), inTransaction }, id),
    )
  } else if (message.kind === "close") {
    ++current
    void close()
  } else void asyncRequest(message)
})

// A driver failure no promise caught: the statement waiting (if any) fails with it rather than hang.
process.on("uncaughtException", (error) => {
  if (answered !== current) answer({ ok: false, error: describe(error), inTransaction })
})
