// Tool search's index over the deferrable tools: built in a worker, rebuilt after registry changes.

import { DEFAULT_AGENT } from "../runtime/permission/agents/agent.ts"
import type { Registry } from "../runtime/registry/registry.ts"
import { isDeferrable } from "../runtime/tool-search/deferral.ts"
import { type AsyncToolIndex, buildIndexOffThread } from "../runtime/tool-search/off-thread-index.ts"
import type { SearchDoc } from "../runtime/tool-search/rank/types.ts"

/** How long after a registry change (or start-up) the index is rebuilt: a burst of changes builds once. */
const REBUILD_DELAY_MS = 100

/**
 * The index over every deferrable tool (definition and source, with the MCP server's own
 * description).
 * 1. Built on first use, or soon after `warm`, in a worker thread (`off-thread-index.ts`): never on the
 *    listing path, never stalling the event loop.
 * 2. A registry change (an MCP server's tools/list_changed, a plugin) makes it stale: the old one is
 *    ended, and one that had been built is rebuilt once per burst of changes.
 * 3. `close` stops following the registry and ends the index.
 */
export class DeferrableIndex {
  readonly #registry: Registry
  readonly #docOf: (source: string) => NonNullable<SearchDoc["server"]>
  readonly #extraFor: (agent: string) => Readonly<Record<string, unknown>>
  readonly #offChange: () => void
  #index: Promise<AsyncToolIndex> | undefined
  #soon: NodeJS.Timeout | undefined
  #closed = false

  constructor(options: {
    registry: Registry
    extraFor: (agent: string) => Readonly<Record<string, unknown>>
    /** How a source is named and described in the index (`server` of each document). */
    server: (source: string) => NonNullable<SearchDoc["server"]>
  }) {
    this.#registry = options.registry
    this.#extraFor = options.extraFor
    this.#docOf = options.server
    this.#offChange = this.#registry.onChange(() => {
      const built = this.#index !== undefined
      this.#stale()
      if (built) this.warm()
    })
  }

  /** The index as it is now, built if it is not. */
  current(): Promise<AsyncToolIndex> {
    this.#index ??= this.#build()
    return this.#index
  }

  /** Builds it soon, when anything is deferrable (once per burst of calls). */
  warm(): void {
    if (this.#soon || this.#closed || !this.#anyDeferrable()) return
    this.#soon = setTimeout(() => {
      this.#soon = undefined
      if (!this.#closed && this.#anyDeferrable()) this.current().catch(() => this.#stale())
    }, REBUILD_DELAY_MS)
    this.#soon.unref()
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#soon)
    this.#offChange()
    this.#stale()
  }

  // The index a change makes stale is ended once replaced (its worker exits).
  #stale(): void {
    const old = this.#index
    this.#index = undefined
    void old?.then(
      (built) => built.close(),
      () => {},
    )
  }

  async #build(): Promise<AsyncToolIndex> {
    const agent = DEFAULT_AGENT
    const defined = await this.#registry.tools({ agent, extra: this.#extraFor(agent) })
    const docs: SearchDoc[] = defined
      .filter((tool) => isDeferrable(tool.entry.source))
      .map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        server: this.#docOf(tool.entry.source),
      }))
    return buildIndexOffThread(docs)
  }

  #anyDeferrable(): boolean {
    const registry = this.#registry
    return registry.ids().some((name) => isDeferrable(registry.resolve(name)?.source ?? "builtin"))
  }
}
