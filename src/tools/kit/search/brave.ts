import { requestJson } from "./http-json.ts"
import type { SearchHit, SearchProvider } from "./provider.ts"

interface BraveAnswer {
  readonly web?: { readonly results?: readonly { title?: unknown; url?: unknown; description?: unknown }[] }
}

/** Brave's most results per request. */
const BRAVE_MAX_COUNT = 20

/** Brave Search's web API (GET, `X-Subscription-Token`); its snippets carry `<strong>` marks, removed here. */
export const brave: SearchProvider = {
  label: "Brave Web Search",
  async search(query, call) {
    const url = new URL(call.settings.url)
    url.searchParams.set("q", query.query)
    url.searchParams.set("count", String(Math.min(query.numResults, BRAVE_MAX_COUNT)))
    const answer = (await requestJson({
      provider: "brave",
      url,
      headers: { "X-Subscription-Token": call.settings.apiKey ?? "" },
      signal: call.signal,
      env: call.env,
    })) as BraveAnswer
    const hits: SearchHit[] = (answer.web?.results ?? []).map((result) => ({
      title: plain(String(result.title ?? "")),
      url: String(result.url ?? ""),
      snippet: plain(String(result.description ?? "")),
    }))
    return { hits: hits.slice(0, query.numResults) }
  },
}

/** Text without inline tags and with the common entities decoded. */
export function plain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
}
