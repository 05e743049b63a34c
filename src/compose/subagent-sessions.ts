// What the runtime knows of subagent sessions: their own rules (read from the store once), the
// parent's policy each is held to, how deep each is, and, while one runs in this process, the call
// that started it (so its asks reach the person the caller's asks reach).

import type { AskedBySubagent } from "../platform/store/record-shapes.ts"
import type { Store } from "../platform/store/store.ts"
import { DEFAULT_AGENT } from "../runtime/permission/agents/agent.ts"
import type { Ruleset } from "../runtime/permission/rule.ts"

/** No rules of its own: every session that is not a subagent's. */
const NONE: Ruleset = Object.freeze([])

export class SubagentSessions {
  readonly #store: Store
  /** Rules per session, as the engine wants them: the same array each time (it caches by identity). */
  readonly #rules = new Map<string, Ruleset>()
  readonly #depths = new Map<string, number>()
  /** Each session's parent (null: none), as the store says. */
  readonly #parents = new Map<string, string | null>()
  /** The agent each subagent's parent ran as when it started (or resumed) it, in this process. */
  readonly #parentAgents = new Map<string, string>()
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

  /** The parent of `sessionID` ran as `agent` when it started or resumed the subagent there. */
  adopt(sessionID: string, agent: string): void {
    this.#parentAgents.set(sessionID, agent)
  }

  /**
   * The constraints a session is held to beyond its agent's: none for a session no subagent runs in;
   * for a subagent's, its own denials (`rules`), then its parent's whole policy — the ruleset and
   * constraints of the agent the parent ran as (`heldTo`), and the parent session's own constraints,
   * up to the top. A subagent is never more permissive than whoever started it.
   */
  constraints(sessionID: string, heldTo: (agent: string) => readonly Ruleset[]): Ruleset[] {
    const out: Ruleset[] = []
    for (let session = sessionID; ; ) {
      const parent = this.#parentOf(session)
      if (parent === undefined) return out
      const own = this.rules(session)
      if (own.length) out.push(own)
      out.push(...heldTo(this.#parentAgent(session, parent)))
      session = parent
    }
  }

  /** The session that started `sessionID`, read once: a session's parent never changes. */
  #parentOf(sessionID: string): string | undefined {
    let parent = this.#parents.get(sessionID)
    if (parent === undefined) {
      parent = this.#store.sessions.get(sessionID)?.parentID ?? null
      this.#parents.set(sessionID, parent)
    }
    return parent ?? undefined
  }

  /** The agent the parent of `sessionID` ran as: as adopted, else what the store says of the parent. */
  #parentAgent(sessionID: string, parent: string): string {
    return (
      this.#parentAgents.get(sessionID) ??
      this.#store.sessionAgents.get(parent) ??
      this.#store.sessions.get(parent)?.agent ??
      DEFAULT_AGENT
    )
  }

  /** How many sessions lie above `sessionID` (0 for a session no subagent runs in). */
  depth(sessionID: string): number {
    const known = this.#depths.get(sessionID)
    if (known !== undefined) return known
    const parent = this.#parentOf(sessionID)
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
