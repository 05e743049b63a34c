// The deferred tools each session has loaded (through tool_search or a surface): listed for it from then on.

/** Sessions remembered at most; the least recently used is forgotten first. */
export const MAX_SESSIONS = 10_000

/** Names loaded per session at most (a session that loads more keeps the latest). */
export const MAX_NAMES_PER_SESSION = 2_000

type Listener = (sessionID: string, names: readonly string[]) => void

const EMPTY: ReadonlySet<string> = new Set()

/** Per-session loaded names, bounded (LRU over sessions), with listeners told of new loads. */
export class LoadedSets {
  readonly #sessions = new Map<string, Set<string>>()
  readonly #listeners = new Set<Listener>()
  readonly #maxSessions: number

  constructor(options: { maxSessions?: number } = {}) {
    this.#maxSessions = options.maxSessions ?? MAX_SESSIONS
  }

  loaded(sessionID: string): ReadonlySet<string> {
    const names = this.#sessions.get(sessionID)
    if (!names) return EMPTY
    // Touched: moved to the young end.
    this.#sessions.delete(sessionID)
    this.#sessions.set(sessionID, names)
    return names
  }

  /** Adds names; listeners hear only those not loaded before (nothing when none is new). */
  load(sessionID: string, names: readonly string[]): void {
    let set = this.#sessions.get(sessionID)
    this.#sessions.delete(sessionID)
    if (!set) set = new Set()
    this.#sessions.set(sessionID, set)
    const added: string[] = []
    for (const name of names) {
      if (set.has(name)) continue
      set.add(name)
      added.push(name)
    }
    while (set.size > MAX_NAMES_PER_SESSION) set.delete(set.values().next().value!)
    while (this.#sessions.size > this.#maxSessions) this.#sessions.delete(this.#sessions.keys().next().value!)
    if (added.length === 0) return
    for (const listener of this.#listeners) {
      try {
        listener(sessionID, added)
      } catch {
        // A listener's failure (a closed transport) must not undo the load or reach the caller.
      }
    }
  }

  onLoad(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  forget(sessionID: string): void {
    this.#sessions.delete(sessionID)
  }
}
