// What a toolbelt offers surfaces about tool search: the loaded sets and the deferral in effect.

import type { ToolsQuery } from "../registry/registry.ts"
import type { ToolSearchMode } from "./deferral.ts"

/** The deferral in effect for one query, for a person (`toolbelt tools`) or a surface. */
export interface ToolSearchState {
  readonly mode: ToolSearchMode
  /** Tokens (o200k_base) the definitions offered up front may take before `auto` defers. */
  readonly budget: number
  /** Tokens of every definition that would be offered without deferral (tool_search not counted). */
  readonly totalTokens: number
  /** How many tools would be offered without deferral. */
  readonly offered: number
  /** How many of them are deferred. */
  readonly deferred: number
  /** Why they are (or are not) deferred, in one sentence. */
  readonly reason: string
}

export interface ToolSearchControl {
  /** Names tool_search (or a surface) loaded into the session: listed for it from then on. */
  loaded(sessionID: string): ReadonlySet<string>
  /** Loads names into a session (unknown names ignored); listeners hear only names that were not loaded yet. */
  load(sessionID: string, names: readonly string[]): void
  /** Hears (sessionID, newly loaded names). Returns the unsubscribe. */
  onLoad(listener: (sessionID: string, names: readonly string[]) => void): () => void
  /** The deferral for a query: mode, budget, tokens of all offered definitions, counts, and why. */
  state(query?: ToolsQuery): Promise<ToolSearchState>
}
