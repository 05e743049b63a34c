import { requestJson } from "./http-json.ts"
import type { SearchHit, SearchProvider } from "./provider.ts"

interface SearxngAnswer {
  readonly results?: readonly { title?: unknown; url?: unknown; content?: unknown }[]
  readonly answers?: readonly unknown[]
}

/**
 * A SearXNG instance's JSON search (`GET <url>/search?q=...&format=json`; the instance must list json
 * in `search.formats`). Its direct answers, when it has any, come first.
 */
export const searxng: SearchProvider = {
  label: "SearXNG Web Search",
  async search(query, call) {
    const url = new URL(
      "search",
      call.settings.url.endsWith("/") ? call.settings.url : `${call.settings.url}/`,
    )
    url.searchParams.set("q", query.query)
    url.searchParams.set("format", "json")
    const answer = (await requestJson({
      provider: "searxng",
      url,
      signal: call.signal,
      env: call.env,
    })) as SearxngAnswer
    const direct: SearchHit[] = (answer.answers ?? [])
      .map((item) => (typeof item === "string" ? item : String((item as { answer?: unknown }).answer ?? "")))
      .filter(Boolean)
      .map((text) => ({ title: "Answer", url: "", snippet: text }))
    const hits: SearchHit[] = (answer.results ?? []).map((result) => ({
      title: String(result.title ?? ""),
      url: String(result.url ?? ""),
      snippet: String(result.content ?? ""),
    }))
    return { hits: [...direct, ...hits.slice(0, query.numResults)] }
  },
}
