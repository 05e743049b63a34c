import { callMcpText } from "./mcp-call.ts"
import type { SearchProvider } from "./provider.ts"

/** Parallel over MCP (`web_search`): the query as the objective and the one search query, as opencode sends it. */
export const parallel: SearchProvider = {
  label: "Parallel Web Search",
  async search(query, call) {
    const text = await callMcpText({
      call,
      tool: "web_search",
      args: { objective: query.query, search_queries: [query.query], session_id: call.sessionID },
      ...(call.settings.apiKey ? { headers: { Authorization: `Bearer ${call.settings.apiKey}` } } : {}),
    })
    return { text: text ?? "" }
  },
}
