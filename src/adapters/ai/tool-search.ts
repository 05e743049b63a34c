// Deferred tools in an AI SDK turn: which tools the model is offered at each step. The tool set holds
// every tool the agent may see, so a call of a deferred one parses; the model is offered those listed
// up front and the deferred ones the session loaded since (tool_search found them, or a call named them).
import type { Registry } from "../../runtime/registry/registry.ts"
import { isDeferrable } from "../../runtime/tool-search/deferral.ts"
import type { ToolHost } from "./host.ts"

/**
 * `callable` (every tool, the deferred ones marked, nothing counted) when some registered tool could be
 * deferred; else the up-front listing is every tool there is.
 */
export function listingFor(registry: Registry): "callable" | "listed" {
  const deferrable = registry.ids().some((name) => isDeferrable(registry.resolve(name)?.source ?? "builtin"))
  return deferrable ? "callable" : "listed"
}

/** The tools of one assistant message, as offered step by step. */
export class OfferedTools {
  readonly #upFront: ReadonlySet<string>
  readonly #deferred: ReadonlySet<string>
  readonly #host: ToolHost
  readonly #sessionID: string

  /** `upFront`: listed from the first step; `deferred`: in the set, offered once the session loads them. */
  constructor(options: {
    host: ToolHost
    sessionID: string
    upFront: Iterable<string>
    deferred: Iterable<string>
  }) {
    this.#host = options.host
    this.#sessionID = options.sessionID
    this.#upFront = new Set(options.upFront)
    this.#deferred = new Set(options.deferred)
  }

  /** Whether the model is offered `name` now (asked per model call: a load in step N shows from N+1). */
  has(name: string): boolean {
    if (this.#upFront.has(name)) return true
    return this.#deferred.has(name) && this.#loaded().has(name)
  }

  /** The names offered now, sorted. */
  names(): string[] {
    const loaded = this.#loaded()
    const names = [...this.#upFront, ...[...this.#deferred].filter((name) => loaded.has(name))]
    return names.sort()
  }

  /**
   * A deferred tool the model called by name (from a search's text, or a guess): loaded into the
   * session, so it is offered from the next step on, as over MCP.
   */
  called(name: string): void {
    if (this.#deferred.has(name) && !this.#loaded().has(name))
      this.#host.toolSearch?.load(this.#sessionID, [name])
  }

  #loaded(): ReadonlySet<string> {
    return this.#host.toolSearch?.loaded(this.#sessionID) ?? NONE
  }
}

const NONE: ReadonlySet<string> = new Set()
