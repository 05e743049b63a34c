// Every session this server runs calls for has a row in the store's session table, so the API can list
// it: sessions made through the API have one from the start, MCP clients' from their first request, and
// any other (a library caller's) from its first call.
import { hostname } from "node:os"
import type { SessionInfo } from "../../platform/store/sessions.ts"
import type { Store } from "../../platform/store/store.ts"
import { logger } from "../../platform/util/log.ts"
import type { Bus, Subscription } from "../../runtime/bus/bus.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"

const log = logger("serve")

/** A session's `time.updated` moves at most this often (a busy session does not write on every call). */
const TOUCH_EVERY_MS = 1000

/**
 * How old a remembered session row may be and still answer a request without a read of the store.
 * A session deleted elsewhere (another process on the same file, another host of the fleet) is
 * refused here at most this long after; a call that finishes in it re-checks sooner (the touch
 * finds no row). A row changes only in `time.updated`, which those lookups do not use (the session's
 * own route, `GET /api/sessions/:id`, reads the store).
 */
export const ROW_FRESH_MS = 1000

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
  /** The clock (tests move it). */
  readonly now?: () => number
}

/** What is remembered of a session known to have a row. */
interface Known {
  /** When it was last marked updated. */
  touched: number
  /** Its row, when read or written here, and when that was last known to be in the store. */
  row?: SessionInfo
  checked: number
}

/** The host name sessions this server creates are recorded with (the fleet's list shows it). */
export const HOST = hostname()

/**
 * Keeps the session table in step with the calls on the bus:
 * 1. `opened` records a session a client opened (an MCP connection), titled after the client.
 * 2. A tool part of a session the table does not have adds it, titled after its first call.
 * 3. A call that finished marks its session updated (at most once a second per session, the
 *    sessions due in one turn of the loop in one transaction), so the list shows the busiest first.
 * 4. It remembers the sessions it has seen (so it looks a row up once, not at every call) up to
 *    `maxKnown`, the least recently active forgotten first.
 * 5. `get` answers the API's lookups of a session from the row it remembers while that is younger
 *    than `ROW_FRESH_MS` (a read of the store per request was 5% of serve's CPU under
 *    bench/serve-load.bench.ts), else from the store. A touch that finds no row (deleted meanwhile)
 *    drops the row at once; a session not found is never remembered as missing.
 */
export class SessionIndex {
  readonly #options: SessionIndexOptions
  /** Sessions known to have a row, and when each was last marked updated; the most recent last. */
  readonly #known = new Map<string, Known>()
  readonly #maxKnown: number
  readonly #subscription: Subscription
  readonly #now: () => number
  /** Sessions to mark updated, and when. */
  readonly #due = new Map<string, number>()

  constructor(options: SessionIndexOptions) {
    this.#options = options
    this.#maxKnown = options.maxKnown ?? DEFAULT_KNOWN_SESSIONS
    this.#now = options.now ?? Date.now
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
  add(session: SessionInfo): void {
    const now = this.#now()
    this.#remember(session.id, { touched: now, row: session, checked: now })
  }

  /** 5. A session's row: the one remembered while fresh, else the store's; undefined when there is none. */
  get(sessionID: string): SessionInfo | undefined {
    const known = this.#known.get(sessionID)
    const now = this.#now()
    if (known?.row && now - known.checked < ROW_FRESH_MS) return known.row
    const row = this.#options.store.sessions.get(sessionID)
    if (!row) {
      if (known) known.row = undefined
      return undefined
    }
    this.#remember(sessionID, { touched: known?.touched ?? now, row, checked: now })
    return row
  }

  /** Sessions remembered right now. */
  get known(): number {
    return this.#known.size
  }

  close(): void {
    this.#subscription()
    this.#touchDue()
  }

  #ensure(sessionID: string, title: () => string, agent = DEFAULT_AGENT): void {
    if (this.#known.has(sessionID)) return
    const { store, projectID } = this.#options
    const now = this.#now()
    let row = store.sessions.get(sessionID)
    if (!row) {
      try {
        row = store.sessions.create({ id: sessionID, projectID, host: HOST, agent, title: title() })
      } catch {
        // Created meanwhile by someone else (an agent turn of the same session): it has its row.
      }
    }
    this.#remember(sessionID, { touched: now, ...(row ? { row } : {}), checked: now })
  }

  /** 3. Marks the session to be touched with the others due in this turn of the loop. */
  #touch(sessionID: string): void {
    const now = this.#now()
    const known = this.#known.get(sessionID)
    if (known && now - known.touched < TOUCH_EVERY_MS) return
    this.#remember(sessionID, { ...(known ?? { checked: Number.NEGATIVE_INFINITY }), touched: now })
    this.#due.set(sessionID, now)
    if (this.#due.size === 1) setImmediate(() => this.#touchDue())
  }

  /**
   * 3. Writes the touches due in one transaction: a group commit's calls finish together, and one
   * commit per session touched was 1% of serve's CPU per call (bench/serve-load.bench.ts).
   * 5. A touch says whether the row is still there.
   */
  #touchDue(): void {
    if (this.#due.size === 0) return
    const due = [...this.#due]
    this.#due.clear()
    const { store } = this.#options
    let gone: Array<[string, number]>
    try {
      gone = store.db.transaction(() => due.filter(([id, time]) => !store.sessions.touch(id, time)))
    } catch (error) {
      log.warn("could not mark sessions updated", { error: String(error) })
      return
    }
    for (const [id, time] of due) {
      const known = this.#known.get(id)
      if (!known) continue
      if (gone.some(([goneID]) => goneID === id)) known.row = undefined
      else known.checked = Math.max(known.checked, time)
    }
  }

  /** 4. Moves the session to the most recent end; past the bound, the least recent is forgotten. */
  #remember(sessionID: string, known: Known): void {
    this.#known.delete(sessionID)
    this.#known.set(sessionID, known)
    if (this.#known.size <= this.#maxKnown) return
    const oldest = this.#known.keys().next().value
    if (oldest !== undefined) this.#known.delete(oldest)
  }
}
