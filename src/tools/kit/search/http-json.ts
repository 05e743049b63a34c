import { withEndpointFetch } from "../../../platform/net/endpoint-fetch.ts"
import { readCapped } from "../../../platform/net/read-capped.ts"
import { asSentence } from "../../../platform/text/sentence.ts"
import * as Tool from "../../../runtime/tool/index.ts"

/** A provider's answer is never larger than this; a bigger one is a broken provider. */
const MAX_ANSWER_BYTES = 5 * 1024 * 1024

/**
 * Sends one JSON API request to a configured provider (proxies honoured, no address guard: the
 * endpoint is the user's choice) and parses the answer. A status outside 2xx is a ToolFailure with
 * the provider's name, the status and the start of its body (which usually says what is wrong).
 */
export async function requestJson({
  provider,
  url,
  method = "GET",
  headers = {},
  body,
  signal,
  env,
}: {
  provider: string
  url: URL
  method?: "GET" | "POST"
  headers?: Record<string, string>
  body?: unknown
  signal: AbortSignal
  env: Readonly<Record<string, string | undefined>>
}): Promise<unknown> {
  return withEndpointFetch(env, async (fetch) => {
    const response = await fetch(url, {
      method,
      headers: {
        Accept: "application/json",
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal,
    })
    const bytes = await readCapped(response, MAX_ANSWER_BYTES)
    const text = new TextDecoder().decode(bytes)
    if (!response.ok) {
      const detail = text.replace(/\s+/g, " ").trim().slice(0, 300)
      const said = detail ? `: ${asSentence(detail)}` : "."
      const hint = hintFor(provider, response.status)
      throw new Tool.ToolFailure(
        `The ${provider} search provider answered HTTP ${response.status}${said} ${hint}`,
      )
    }
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw new Tool.ToolFailure(
        `The ${provider} search provider at ${url.origin} did not answer with JSON (it sent ${JSON.stringify(text.slice(0, 80))}). Check its URL.`,
      )
    }
  })
}

/** What to do about an HTTP error status, as a sentence. */
function hintFor(provider: string, status: number): string {
  if (provider === "searxng" && status === 403)
    return "Enable the JSON format on the instance: add json to search.formats in its settings.yml."
  if (status === 401 || status === 403) return `Check the ${provider} API key.`
  if (status === 429) return "The provider's rate limit was reached; wait before searching again."
  if (status >= 500) return "The provider failed; try again in a moment."
  return `Check the ${provider} search provider's URL and settings.`
}
