/** A language server that could not start, crashed, or stopped answering: the message says which and why. */
export class ServerFailure extends Error {
  override readonly name = "ServerFailure"
  /** `crash`: it exited (at start or later); `hang`: it did not answer in time and was stopped. */
  readonly kind: "crash" | "hang" | "other"

  constructor(message: string, kind: "crash" | "hang" | "other" = "other") {
    super(message)
    this.kind = kind
  }
}

/** How long a server gets, in milliseconds. */
export interface ServerTimeouts {
  /** From spawn to the answer to `initialize` (default 30 s). */
  readonly startMs: number
  /** For one request; a server that takes longer is taken as hung and stopped (default 30 s). */
  readonly requestMs: number
  /** For `shutdown` and `exit` at close, before the process tree is killed (default 1 s). */
  readonly shutdownMs: number
}

/**
 * What to do about a server that crashed, hung or was shut down: the pool starts it again on the next
 * call (until it has failed too often, when the pool replaces this sentence with why it stays down).
 */
export const RESTART_REMEDY = "Call again to start it anew."

export const DEFAULT_TIMEOUTS: ServerTimeouts = { startMs: 30_000, requestMs: 30_000, shutdownMs: 1000 }
