import type { Store } from "../../platform/store/store.ts"
import type { Bus } from "../../runtime/bus/bus.ts"
import type { Advertised, Registry, ToolsQuery } from "../../runtime/registry/registry.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import type { CallInput } from "../../runtime/settle/types.ts"
import type { ToolSearchControl } from "../../runtime/tool-search/control.ts"

/**
 * What the AI SDK adapter needs of a toolbelt. It is declared here, in the runtime's terms, so the
 * adapter does not import the composition root that builds toolbelts (which sits above it). The
 * `Toolbelt` that `createToolbelt` returns keeps the registry, store and bus off its public object, so
 * it lends its host here (`lendHost`) and the adapter's entry points find it (`hostOf`).
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

/**
 * What the adapter's entry points take: a toolbelt `createToolbelt` made (it lent its host), or a
 * `ToolHost` built by hand (the subagents' turns, a host of one's own).
 */
export type HostSource = Pick<ToolHost, "directory" | "tools" | "call">

// Keyed by the public toolbelt, so the host lives as long as it does and no member of it leads here.
const lent = new WeakMap<object, ToolHost>()

/** Called by `createToolbelt` for the object it returns. */
export function lendHost(toolbelt: object, host: ToolHost): void {
  lent.set(toolbelt, host)
}

/** The host behind what an entry point was given. */
export function hostOf(source: HostSource): ToolHost {
  const found = lent.get(source)
  if (found) return found
  if ("registry" in source && "store" in source && "bus" in source) return source as ToolHost
  throw new TypeError(
    "The AI SDK adapter needs a toolbelt made by createToolbelt (or a ToolHost with its registry, store and bus). Pass the object createToolbelt returned.",
  )
}
