// How many tool calls an MCP server runs at once, per session and in all, and how many may wait.
import type { McpSettings } from "../../runtime/config/mcp-settings.ts"

/** The bounds, from the `mcp` settings. */
export interface CallLimits {
  /** Calls one session runs at once (`mcp.max_calls_per_session`). */
  readonly perSession: number
  /** Calls running at once over every session of the server (`mcp.max_calls`). */
  readonly total: number
  /** Calls of one session waiting for a place (`mcp.max_queued_calls`); one more is refused. */
  readonly queued: number
}

/** The bounds the `mcp` settings give. */
export function callLimitsOf(settings: McpSettings): CallLimits {
  return {
    perSession: settings.maxCallsPerSession,
    total: settings.maxCalls,
    queued: settings.maxQueuedCalls,
  }
}

/** A call that may not run: too many are running and waiting. The message says which limit, and what to do. */
export class CallLimitError extends Error {
  override readonly name = "CallLimitError"
}

/** Gives the place back; a second call does nothing. */
export type Release = () => void

interface Waiter {
  readonly session: SessionCalls
  readonly resolve: (release: Release) => void
}

/**
 * The places of one server.
 * 1. A call takes a place when its session runs fewer than `perSession` and the server fewer than
 *    `total`; it runs at once.
 * 2. Otherwise it waits, first come first served over all sessions, unless its session already has
 *    `queued` calls waiting: then it is refused (`CallLimitError`) and holds nothing.
 * 3. A place given back goes to the oldest waiter whose session has room.
 * 4. A waiter whose request is cancelled leaves the line.
 * 5. A session on hold (its client is not reading what it was sent) gets no place: its calls wait,
 *    or are refused past `queued`, so what it answers cannot pile up; let go, its waiters run.
 */
export class CallGate {
  readonly limits: CallLimits
  #running = 0
  readonly #line: Waiter[] = []

  constructor(limits: CallLimits) {
    this.limits = limits
  }

  /** Calls running now, over all sessions. */
  get running(): number {
    return this.#running
  }

  /** Calls waiting now, over all sessions. */
  get waiting(): number {
    return this.#line.length
  }

  /** The calls of one session, under this server's bounds. */
  forSession(): SessionCalls {
    return new SessionCalls(this)
  }

  /** 1, 2. A place for a call of `session`, now or once one is free. */
  enter(session: SessionCalls, signal?: AbortSignal): Promise<Release> {
    if (this.#hasRoom(session)) return Promise.resolve(this.#take(session))
    if (session.waiting >= this.limits.queued)
      return Promise.reject(new CallLimitError(this.#refusal(session)))
    if (signal?.aborted) return Promise.reject(signal.reason)
    const { promise, resolve, reject } = Promise.withResolvers<Release>()
    const waiter: Waiter = { session, resolve }
    this.#line.push(waiter)
    session.waiting++
    // 4. Cancelled while waiting.
    const onAbort = () => {
      const at = this.#line.indexOf(waiter)
      if (at === -1) return
      this.#line.splice(at, 1)
      session.waiting--
      reject(signal?.reason)
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    return promise.finally(() => signal?.removeEventListener("abort", onAbort))
  }

  /** 5. A session let go of its hold: its waiters may run. */
  wake(): void {
    this.#next()
  }

  #hasRoom(session: SessionCalls): boolean {
    return !session.held && session.running < this.limits.perSession && this.#running < this.limits.total
  }

  #take(session: SessionCalls): Release {
    this.#running++
    session.running++
    let released = false
    return () => {
      if (released) return
      released = true
      this.#running--
      session.running--
      this.#next()
    }
  }

  // 3. The oldest waiter that may run now.
  #next(): void {
    for (let at = 0; at < this.#line.length && this.#running < this.limits.total; at++) {
      const waiter = this.#line[at]!
      if (!this.#hasRoom(waiter.session)) continue
      this.#line.splice(at, 1)
      at--
      waiter.session.waiting--
      waiter.resolve(this.#take(waiter.session))
    }
  }

  #refusal(session: SessionCalls): string {
    const { perSession, total, queued } = this.limits
    return (
      `Too many tool calls at once: this MCP session has ${session.running} running and ${session.waiting} waiting ` +
      `(at most ${perSession} run per session and ${total} over all sessions; ${queued} may wait), so this call did not run. ` +
      `Wait for some to finish before sending more, or raise "mcp.max_calls_per_session", "mcp.max_calls" ` +
      `or "mcp.max_queued_calls" in toolbelt.json.`
    )
  }
}

/** The calls of one session: what it runs and what it has waiting. */
export class SessionCalls {
  readonly #gate: CallGate
  running = 0
  waiting = 0
  /** On hold: its calls get no place (the client does not read what it was sent). */
  held = false

  constructor(gate: CallGate) {
    this.#gate = gate
  }

  /** A place for one call: resolves when it may run, rejects with `CallLimitError` when it may not wait. */
  enter(signal?: AbortSignal): Promise<Release> {
    return this.#gate.enter(this, signal)
  }

  /** Holds new calls back while `held` (the running ones go on), and lets them run once not. */
  hold(held: boolean): void {
    if (this.held === held) return
    this.held = held
    if (!held) this.#gate.wake()
  }
}
