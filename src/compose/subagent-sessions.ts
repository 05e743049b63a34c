// What the runtime knows of subagent sessions: their own rules (read from the store once), how deep
// each is, and, while one runs in this process, the call that started it (so its asks reach the
// person the caller's asks reach).

import type { AskedBySubagent } from "../platform/store/record-shapes.ts"
import type { Store } from "../platform/store/store.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"

/** No rules of its own: every session that is not a subagent's. */
const NONE: Ruleset = Object.freeze([])

export class SubagentSessions {
  readonly #store: Store
  /** Rules per session, as the engine wants them: the same array each time (it caches by identity). */
  readonly #rules = new Map<string, Ruleset>()
  readonly #depths = new Map<string, number>()
  /** The subagents running in this process, by their session. */
  readonly #running = new Map<string, Omit<AskedBySubagent, "root">>()

  constructor(store: Store) {
    this.#store = store
  }

  /** The configured rules of a session beyond its agent's (a subagent's); empty for other sessions. */
  rules(sessionID: string): Ruleset {
    let rules = this.#rules.get(sessionID)
    if (!rules) {
      // Final once read: a session gets its rules when it is created (a subagent's, under a fresh id).
      const stored = this.#store.sessions.get(sessionID)?.permission
      rules = stored?.length ? Object.freeze([...stored]) : NONE
      this.#rules.set(sessionID, rules)
    }
    return rules
  }

  /** How many sessions lie above `sessionID` (0 for a session no subagent runs in). */
  depth(sessionID: string): number {
    const known = this.#depths.get(sessionID)
    if (known !== undefined) return known
    const parent = this.#store.sessions.get(sessionID)?.parentID
    const depth = parent === undefined ? 0 : this.depth(parent) + 1
    if (parent !== undefined) this.#depths.set(sessionID, depth)
    return depth
  }

  /** A subagent starts running in `sessionID`; the returned function says it stopped. */
  running(sessionID: string, origin: Omit<AskedBySubagent, "root">): () => void {
    this.#running.set(sessionID, origin)
    return () => {
      if (this.#running.get(sessionID) === origin) this.#running.delete(sessionID)
    }
  }

  /** The subagent running in `sessionID`, with the call at the top of its nest; undefined if none. */
  subagentOf(sessionID: string): AskedBySubagent | undefined {
    const origin = this.#running.get(sessionID)
    if (!origin) return undefined
    let root = origin.parent
    for (let above = this.#running.get(root.sessionID); above; above = this.#running.get(root.sessionID))
      root = above.parent
    return { ...origin, root }
  }
}
