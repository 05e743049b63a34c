// Every session this server runs calls for has a row in the store's session table, so the API can list
// it: sessions made through the API have one from the start, MCP clients' from their first request, and
// any other (a library caller's) from its first call.
import { hostname } from "node:os"
import type { Store } from "../../platform/store/store.ts"
import type { Bus, Subscription } from "../../runtime/bus/bus.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"

/** A session's `time.updated` moves at most this often (a busy session does not write on every call). */
const TOUCH_EVERY_MS = 1000

/**
 * Sessions remembered at most, the least recently active forgotten first. Sessions made through the
 * API never end, so without a bound a long-running server would keep one entry for every session it
 * ever saw; forgetting one costs only a lookup of its row at its next call.
 */
export const DEFAULT_KNOWN_SESSIONS = 10_000

export interface SessionIndexOptions {
  readonly store: Store
  readonly bus: Bus
  /** The project the sessions belong to. */
  readonly projectID: string
  /** Sessions remembered at most (default `DEFAULT_KNOWN_SESSIONS`). */
  readonly maxKnown?: number
}

/** The host name sessions this server creates are recorded with (the fleet's list shows it). */
export const HOST = hostname()

/**
 * Keeps the session table in step with the calls on the bus:
 * 1. `opened` records a session a client opened (an MCP connection), titled after the client.
 * 2. A tool part of a session the table does not have adds it, titled after its first call.
 * 3. A call that finished marks its session updated (at most once a second per session), so the
 *    list shows the busiest first.
 * 4. It remembers the sessions it has seen (so it looks a row up once, not at every call) up to
 *    `maxKnown`, the least recently active forgotten first.
 */
export class SessionIndex {
  readonly #options: SessionIndexOptions
  /** Sessions known to have a row, and when each was last marked updated; the most recent last. */
  readonly #known = new Map<string, number>()
  readonly #maxKnown: number
  readonly #subscription: Subscription

  constructor(options: SessionIndexOptions) {
    this.#options = options
    this.#maxKnown = options.maxKnown ?? DEFAULT_KNOWN_SESSIONS
    this.#subscription = options.bus.subscribe("message.part.updated", ({ properties: { part } }) => {
      this.#ensure(part.sessionID, () => `${part.tool} call`)
      const status = part.state.status
      if (status === "completed" || status === "error") this.#touch(part.sessionID)
    })
  }

  /** 1. A session a client opened. */
  opened(sessionID: string, title: string, agent = DEFAULT_AGENT): void {
    this.#ensure(sessionID, () => title, agent)
  }

  /** Marks a session as having a row (it was just created through the API). */
  add(sessionID: string): void {
    this.#remember(sessionID, Date.now())
  }

  /** Sessions remembered right now. */
  get known(): number {
    return this.#known.size
  }

  close(): void {
    this.#subscription()
  }

  #ensure(sessionID: string, title: () => string, agent = DEFAULT_AGENT): void {
    if (this.#known.has(sessionID)) return
    const { store, projectID } = this.#options
    if (!store.sessions.get(sessionID)) {
      try {
        store.sessions.create({ id: sessionID, projectID, host: HOST, agent, title: title() })
      } catch {
        // Created meanwhile by someone else (an agent turn of the same session): it has its row.
      }
    }
    this.#remember(sessionID, Date.now())
  }

  #touch(sessionID: string): void {
    const now = Date.now()
    if (now - (this.#known.get(sessionID) ?? 0) < TOUCH_EVERY_MS) return
    this.#remember(sessionID, now)
    this.#options.store.sessions.touch(sessionID, now)
  }

  /** 4. Moves the session to the most recent end; past the bound, the least recent is forgotten. */
  #remember(sessionID: string, time: number): void {
    this.#known.delete(sessionID)
    this.#known.set(sessionID, time)
    if (this.#known.size <= this.#maxKnown) return
    const oldest = this.#known.keys().next().value
    if (oldest !== undefined) this.#known.delete(oldest)
  }
}
