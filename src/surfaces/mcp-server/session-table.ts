// The live MCP sessions of the HTTP server: when each was last used, which end by idleness, which make
// room for a new one, and why an ended one is gone.
import { monotonicMs } from "../../platform/util/clock.ts"

/** Something that can be ended: its calls aborted, its processes killed, its memory let go. */
export interface Endable {
  end(): Promise<void>
}

export type EndReason = "deleted" | "expired" | "evicted" | "closed"

export interface SessionTableOptions {
  /** A session with no request and no open response for this long ends. */
  readonly idleMs: number
  /** Live sessions at most: adding one more ends the one idle the longest. */
  readonly maxSessions: number
  /** Told about every session that ended, with why (logging). */
  readonly onEnd?: (id: string, reason: EndReason) => void
}

interface Entry<S> {
  readonly session: S
  /** Requests of the session whose response is still being sent (a call's stream, the GET stream). */
  inUse: number
  /** When the session was last used (a request came, a response ended). */
  lastUsed: number
  timer: ReturnType<typeof setTimeout> | undefined
}

/** The longest delay a Node timer holds (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647

/** How many ended session ids are remembered, to say why they are gone (a bound on memory). */
const REMEMBERED_ENDINGS = 1024

/**
 * The sessions, by id.
 * 1. `use(id)` marks a request of the session: the session is in use until the returned release
 *    runs (when its response has been sent or the client went away), so a call a client is
 *    waiting on never expires under it.
 * 2. A session that nobody uses for `idleMs` ends (`expired`).
 * 3. `add` beyond `maxSessions` first ends the longest-idle session (`evicted`), preferring one
 *    with no open response: a new client always gets in, and the evicted client's next request
 *    gets 404, on which MCP clients start a new session.
 * 4. `end` takes the session out first (its later requests get 404), then ends it; the reason is
 *    kept for the last ended ids, so a 404 can say why.
 */
export class SessionTable<S extends Endable> {
  readonly #options: SessionTableOptions
  readonly #entries = new Map<string, Entry<S>>()
  readonly #ended = new Map<string, EndReason>()

  constructor(options: SessionTableOptions) {
    this.#options = options
  }

  get size(): number {
    return this.#entries.size
  }

  get(id: string): S | undefined {
    return this.#entries.get(id)?.session
  }

  /** Why a session that is not live any more ended, when it is still remembered. */
  endedBecause(id: string): EndReason | undefined {
    return this.#ended.get(id)
  }

  /** 3. Adds a session, ending the longest-idle one first when the table is full. */
  add(id: string, session: S): void {
    while (this.#entries.size >= this.#options.maxSessions) {
      const victim = this.#longestIdle()
      if (victim === undefined) break
      void this.end(victim, "evicted")
    }
    const entry: Entry<S> = { session, inUse: 0, lastUsed: monotonicMs(), timer: undefined }
    this.#entries.set(id, entry)
    this.#arm(id, entry)
  }

  /** 1. A request of the session begins; call the result when its response has ended. */
  use(id: string): () => void {
    const entry = this.#entries.get(id)
    if (!entry) return () => {}
    entry.inUse++
    entry.lastUsed = monotonicMs()
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = undefined
    let released = false
    return () => {
      if (released) return
      released = true
      entry.inUse--
      entry.lastUsed = monotonicMs()
      if (this.#entries.get(id) === entry) this.#arm(id, entry)
    }
  }

  /** 4. Ends one session; a second end of the same id does nothing. */
  async end(id: string, reason: EndReason): Promise<void> {
    const entry = this.#entries.get(id)
    if (!entry) return
    this.#entries.delete(id)
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = undefined
    this.#remember(id, reason)
    this.#options.onEnd?.(id, reason)
    await entry.session.end()
  }

  /** Ends every session (the server is closing). */
  async endAll(): Promise<void> {
    await Promise.all([...this.#entries.keys()].map((id) => this.end(id, "closed")))
  }

  // 2. The idle clock runs only while nothing of the session is in flight.
  #arm(id: string, entry: Entry<S>): void {
    if (entry.inUse > 0 || entry.timer) return
    entry.timer = setTimeout(
      () => {
        entry.timer = undefined
        void this.end(id, "expired")
      },
      Math.min(this.#options.idleMs, MAX_TIMER_MS),
    )
    entry.timer.unref?.()
  }

  #longestIdle(): string | undefined {
    let best: [string, Entry<S>] | undefined
    for (const candidate of this.#entries) {
      if (!best || idler(candidate[1], best[1])) best = candidate
    }
    return best?.[0]
  }

  #remember(id: string, reason: EndReason): void {
    this.#ended.set(id, reason)
    if (this.#ended.size > REMEMBERED_ENDINGS) {
      const oldest = this.#ended.keys().next().value
      if (oldest !== undefined) this.#ended.delete(oldest)
    }
  }
}

/** Whether `a` should be evicted before `b`: nothing in flight first, then the longer idle. */
function idler(a: Entry<unknown>, b: Entry<unknown>): boolean {
  if ((a.inUse === 0) !== (b.inUse === 0)) return a.inUse === 0
  return a.lastUsed < b.lastUsed
}
