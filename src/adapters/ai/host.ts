import type { Store } from "../../platform/store/store.ts"
import type { Bus } from "../../runtime/bus/bus.ts"
import type { Advertised, Registry, ToolsQuery } from "../../runtime/registry/registry.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import type { CallInput } from "../../runtime/settle/types.ts"
import type { ToolSearchControl } from "../../runtime/tool-search/control.ts"

/**
 * What the AI SDK adapter needs of a toolbelt. It is declared here, in the runtime's terms, so the
 * adapter does not import the composition root that builds toolbelts (which sits above it); the
 * `Toolbelt` that `createToolbelt` returns satisfies it.
 */
export interface ToolHost {
  /** The project directory (the agent loop's default instructions are read from it). */
  readonly directory: string
  readonly registry: Registry
  readonly store: Store
  readonly bus: Bus
  tools(query?: ToolsQuery): Promise<Advertised[]>
  call(input: CallInput): Promise<Settlement>
  /** What background subagents that finished say, for the session's next turn (handed out once). */
  takeNotices?(sessionID: string): string[]
  /**
   * The deferred tools each session loaded (tool_search's matches): offered to the model from the next
   * step. Without it, every tool `tools()` gives is offered from the start.
   */
  readonly toolSearch?: Pick<ToolSearchControl, "loaded" | "load">
  /** The agents' settings: a turn takes at most its agent's `steps` model calls (default 100). */
  readonly policy?: { readonly agents: ReadonlyMap<string, { readonly steps?: number | undefined }> }
}
