// The shapes the ranking API shares (re-exported by index.ts, the contract other modules import).

/** One searchable tool. */
export interface SearchDoc {
  /** Callable name, e.g. "github_create_issue". */
  readonly name: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  /** The MCP server (or plugin / tool file) it comes from, when known. */
  readonly server?: { readonly name: string; readonly description?: string }
}

export interface SearchHit {
  readonly name: string
  readonly score: number
}

export interface ToolIndex {
  readonly size: number
  /** Best first; at most `limit`; an empty or stop-word-only query gives []. Names filtered by `accept` when given. */
  search(query: string, limit: number, accept?: (name: string) => boolean): SearchHit[]
}
