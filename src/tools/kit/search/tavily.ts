import { requestJson } from "./http-json.ts"
import type { SearchHit, SearchProvider } from "./provider.ts"

interface TavilyAnswer {
  readonly results?: readonly { title?: unknown; url?: unknown; content?: unknown }[]
}

/** Tavily's search API (POST JSON, bearer key); `type: "deep"` asks for its advanced depth. */
export const tavily: SearchProvider = {
  label: "Tavily Web Search",
  async search(query, call) {
    const answer = (await requestJson({
      provider: "tavily",
      url: new URL(call.settings.url),
      method: "POST",
      headers: { Authorization: `Bearer ${call.settings.apiKey ?? ""}` },
      body: {
        query: query.query,
        max_results: query.numResults,
        search_depth: query.type === "deep" ? "advanced" : "basic",
      },
      signal: call.signal,
      env: call.env,
    })) as TavilyAnswer
    const hits: SearchHit[] = (answer.results ?? []).map((result) => ({
      title: String(result.title ?? ""),
      url: String(result.url ?? ""),
      snippet: String(result.content ?? ""),
    }))
    return { hits: hits.slice(0, query.numResults) }
  },
}
