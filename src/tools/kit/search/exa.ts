import { callMcpText } from "./mcp-call.ts"
import type { SearchCall, SearchProvider } from "./provider.ts"

/** Exa's MCP endpoint with the key, when there is one, as the query parameter Exa reads. */
export function exaUrl(call: SearchCall): string {
  if (!call.settings.apiKey) return call.settings.url
  const url = new URL(call.settings.url)
  url.searchParams.set("exaApiKey", call.settings.apiKey)
  return url.href
}

/** Exa over MCP (`web_search_exa`), with opencode's arguments; Exa writes the answer text itself. */
export const exa: SearchProvider = {
  label: "Exa Web Search",
  async search(query, call) {
    const text = await callMcpText({
      call,
      url: exaUrl(call),
      tool: "web_search_exa",
      args: {
        query: query.query,
        type: query.type ?? "auto",
        numResults: query.numResults,
        livecrawl: query.livecrawl ?? "fallback",
        ...(query.contextMaxCharacters !== undefined
          ? { contextMaxCharacters: query.contextMaxCharacters }
          : {}),
      },
    })
    return { text: text ?? "" }
  },
}
