/**
 * What the main thread and the PostgreSQL worker say to each other (worker.ts, database.ts).
 *
 * Statements are synchronous for the caller: the main thread posts a request, blocks in
 * `Atomics.wait` on `SIGNAL` until the worker has posted the answer on the reply port, and takes it
 * with `receiveMessageOnPort`. Listening and notifying are asynchronous: their answers and the
 * notifications arrive on the events port, through the main thread's event loop.
 */
import type { MessagePort } from "node:worker_threads"
import type { SqlValue } from "../sqlite.ts"
import type { TlsSetting } from "./url.ts"

/** Slot of the shared Int32Array: 0 while the main thread waits, `ANSWERED` once the answer is posted. */
export const SIGNAL = 0
export const ANSWERED = 1

export interface WorkerData {
  readonly url: string
  readonly ssl: TlsSetting
  readonly redacted: string
  readonly secret: string
  readonly signal: SharedArrayBuffer
  readonly replies: MessagePort
  readonly events: MessagePort
  /** How long a statement may keep trying to reach a server that refuses connections (restarting), ms. */
  readonly reconnectMs: number
  readonly connectTimeoutS: number
}

/** How a statement's result is wanted: `exec` runs several statements (no parameters) and returns nothing. */
export type Mode = "run" | "get" | "all" | "exec"

/** One statement. */
export interface Query {
  readonly sql: string
  readonly params: readonly SqlValue[]
  readonly mode: Mode
}

export type Request =
  | (Query & {
      readonly kind: "query"
      /**
       * Statements of the open transaction whose answers nobody has read yet (database.ts defers
       * them): run first, in order, in the same message; the first that fails is the answer.
       */
      readonly deferred?: readonly Query[]
    })
  | { readonly kind: "close" }
  | { readonly kind: "listen"; readonly id: number; readonly channel: string }
  | { readonly kind: "unlisten"; readonly id: number; readonly channel: string }
  | { readonly kind: "notify"; readonly id: number; readonly channel: string; readonly payload: string }

export interface FailureInfo {
  readonly message: string
  /** SQLSTATE, or the driver's code for connection errors (`CONNECTION_CLOSED`, `ECONNREFUSED`…). */
  readonly code?: string
  readonly detail?: string
  /** The connection was lost: unless `unknown`, nothing of the transaction it was in was saved. */
  readonly lost?: boolean
  /** Lost under a COMMIT whose outcome the server could not be asked for: it may have been saved. */
  readonly unknown?: boolean
}

export type Reply =
  | {
      readonly ok: true
      readonly rows?: Record<string, unknown>[]
      readonly changes?: number
      /** The rows each deferred statement changed, in order. */
      readonly counts?: readonly number[]
      /** Whether a transaction is open on the connection after this statement. */
      readonly inTransaction: boolean
    }
  | {
      readonly ok: false
      readonly error: FailureInfo
      /** The rows each deferred statement that ran before the failure changed. */
      readonly counts?: readonly number[]
      readonly inTransaction: boolean
    }

export type Event =
  | { readonly kind: "done"; readonly id: number; readonly error?: FailureInfo }
  | { readonly kind: "notification"; readonly channel: string; readonly payload: string }
  /** A listener was (re)established: notifications sent while it was down were missed. */
  | { readonly kind: "listening"; readonly channel: string }
