// What the tool_search tool needs from the runtime, carried in `ctx.extra.toolSearch` (the composition
// root provides it: the index, the deferral for the call's agent and session, the optional rerank).

import type { TurnModel } from "../../runtime/tool/subagent-services.ts"

/** One tool found: its callable name, a one-line summary, and its whole definition. */
export interface FoundTool {
  readonly name: string
  readonly summary: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
}

/** Where deferred tools come from (an MCP server, a plugin, a tool file), with how many and a few words. */
export interface DeferredGroup {
  readonly name: string
  readonly tools: number
  readonly about?: string
}

export interface ToolSearchService {
  /**
   * The deferred tools best matching `query` for the call's agent and session, best first, at most
   * `limit`; reranked by `model` when config asks for it and one is given.
   */
  search(input: {
    readonly query: string
    readonly limit: number
    readonly agent: string
    readonly sessionID: string
    readonly model?: TurnModel | undefined
    readonly signal?: AbortSignal
  }): Promise<{ readonly matches: readonly FoundTool[]; readonly deferred: readonly DeferredGroup[] }>
  /** Lists the names for the session from now on (its next tools/list, the next step of a turn). */
  load(sessionID: string, names: readonly string[]): void
}

/** The service in `ctx.extra`, when the runtime provides one. */
export function toolSearchService(extra: Readonly<Record<string, unknown>>): ToolSearchService | undefined {
  return extra.toolSearch as ToolSearchService | undefined
}
