import type { CallRemoteTool } from "../../../runtime/tool/services.ts"

/** The search providers toolbelt speaks to, each with its own protocol. */
export const PROVIDERS = ["exa", "parallel", "tavily", "brave", "searxng"] as const
export type ProviderName = (typeof PROVIDERS)[number]

/** What a web search asks (opencode's websearch parameters; providers use what they support). */
export interface SearchQuery {
  readonly query: string
  readonly numResults: number
  /** Exa: crawl live pages as a fallback or first. */
  readonly livecrawl?: "fallback" | "preferred" | undefined
  /** Exa: auto, fast or deep; Tavily: deep is its advanced depth. */
  readonly type?: "auto" | "fast" | "deep" | undefined
  /** Exa: the most characters of page context to return. */
  readonly contextMaxCharacters?: number | undefined
}

/** One result of a provider that answers with a list. */
export interface SearchHit {
  readonly title: string
  readonly url: string
  readonly snippet: string
}

/** A provider answers with results (Tavily, Brave, SearXNG) or with text it has already written (Exa, Parallel over MCP). */
export type SearchAnswer = { readonly hits: readonly SearchHit[] } | { readonly text: string }

/** A configured provider: where it is and how to authenticate. */
export interface ProviderSettings {
  readonly provider: ProviderName
  /** The endpoint (an MCP URL for Exa and Parallel, the API URL for the others). */
  readonly url: string
  readonly apiKey: string | undefined
  readonly timeoutMs: number
}

/** What a call gives the provider it runs. */
export interface SearchCall {
  readonly settings: ProviderSettings
  readonly signal: AbortSignal
  readonly env: Readonly<Record<string, string | undefined>>
  readonly sessionID: string
  readonly callRemoteTool: CallRemoteTool | undefined
}

/** One provider behind the one interface websearch uses. */
export interface SearchProvider {
  /** For titles: `Exa Web Search: <query>`. */
  readonly label: string
  search(query: SearchQuery, call: SearchCall): Promise<SearchAnswer>
}
