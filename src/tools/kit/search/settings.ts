import { PROVIDERS, type ProviderName, type ProviderSettings } from "./provider.ts"

/** How long a search may take by default (opencode's 25 s). */
export const DEFAULT_SEARCH_TIMEOUT_MS = 25_000

/** Each provider's endpoint, and the variable its API key is read from. */
export const ENDPOINTS: Record<
  ProviderName,
  { url: string | undefined; key: string | undefined; keyRequired: boolean }
> = {
  exa: { url: "https://mcp.exa.ai/mcp", key: "EXA_API_KEY", keyRequired: false },
  parallel: { url: "https://search.parallel.ai/mcp", key: "PARALLEL_API_KEY", keyRequired: false },
  tavily: { url: "https://api.tavily.com/search", key: "TAVILY_API_KEY", keyRequired: true },
  brave: { url: "https://api.search.brave.com/res/v1/web/search", key: "BRAVE_API_KEY", keyRequired: true },
  // Self-hosted: only its owner knows where.
  searxng: { url: undefined, key: undefined, keyRequired: false },
}

type Env = Readonly<Record<string, string | undefined>>
type Config = Readonly<Record<string, unknown>>

/** A provider, or why there is none (the tool is then not offered, and `toolbelt tools` says this). */
export type Resolved = ProviderSettings | { readonly reason: string }

const HOW =
  `set "websearch": {"provider": "<name>"} in toolbelt.json (${PROVIDERS.join(", ")}; searxng also needs "url"), ` +
  `or set EXA_API_KEY, PARALLEL_API_KEY, TAVILY_API_KEY or BRAVE_API_KEY`

/**
 * The web search provider: the config's `websearch.provider` when set; otherwise the first provider
 * whose API key is in the environment (EXA_API_KEY, PARALLEL_API_KEY, TAVILY_API_KEY, BRAVE_API_KEY);
 * otherwise none. Exa and Parallel work without a key (with lower limits), so they are used keyless
 * only when named: a query is not sent to a third party the user never chose.
 * `websearch.url` replaces the endpoint (a SearXNG instance needs it); `websearch.timeout` is in ms.
 */
export function websearchSettings(config: Config, env: Env): Resolved {
  const section = sectionOf(config, "websearch")
  if ("reason" in section) return section
  if (section.provider === undefined) {
    const found = PROVIDERS.find((name) => {
      const key = ENDPOINTS[name].key
      return key !== undefined && Boolean(env[key])
    })
    if (!found) return { reason: `no search provider is configured: ${HOW}` }
    return settingsFor(found, section, env, "websearch")
  }
  if (typeof section.provider !== "string" || !PROVIDERS.includes(section.provider as ProviderName))
    return {
      reason: `"websearch.provider" is ${JSON.stringify(section.provider)}, not one of ${PROVIDERS.join(", ")}`,
    }
  return settingsFor(section.provider as ProviderName, section, env, "websearch")
}

/**
 * Code search goes through Exa's code-context tool, the one provider that has one: offered when
 * `codesearch.provider` is "exa", when websearch's provider is Exa (its `url` is shared), or when
 * EXA_API_KEY is set. `codesearch.url` and `codesearch.timeout` (ms) override.
 */
export function codesearchSettings(config: Config, env: Env): Resolved {
  const own = sectionOf(config, "codesearch")
  if ("reason" in own) return own
  if (own.provider !== undefined && own.provider !== "exa")
    return {
      reason: `"codesearch.provider" is ${JSON.stringify(own.provider)}; code search is only offered through "exa"`,
    }
  const web = sectionOf(config, "websearch")
  const webIsExa = !("reason" in web) && web.provider === "exa"
  if (own.provider === undefined && !webIsExa && !env.EXA_API_KEY)
    return {
      reason: `code search goes through Exa, which is not configured: set "codesearch": {"provider": "exa"} in toolbelt.json (no key needed; EXA_API_KEY raises the limits), or set EXA_API_KEY`,
    }
  const inherited = webIsExa && own.url === undefined ? { url: (web as Section).url } : {}
  return settingsFor("exa", { ...inherited, ...own }, env, "codesearch")
}

interface Section {
  readonly provider?: unknown
  readonly url?: unknown
  readonly timeout?: unknown
}

function sectionOf(config: Config, name: string): Section | { reason: string } {
  const value = config[name]
  if (value === undefined || value === null) return {}
  if (typeof value !== "object" || Array.isArray(value))
    return { reason: `"${name}" in the config must be an object, e.g. {"provider": "exa"}` }
  return value as Section
}

function settingsFor(provider: ProviderName, section: Section, env: Env, name: string): Resolved {
  const endpoint = ENDPOINTS[provider]
  if (section.url !== undefined && typeof section.url !== "string")
    return { reason: `"${name}.url" must be a URL string` }
  const url = (section.url as string | undefined) ?? endpoint.url
  if (!url)
    return {
      reason: `"${name}.provider" is ${provider}, which needs "${name}.url" (the instance, e.g. http://localhost:8888)`,
    }
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http")
  } catch {
    return { reason: `"${name}.url" is not an http(s) URL: ${url}` }
  }
  const apiKey = endpoint.key ? env[endpoint.key] || undefined : undefined
  if (endpoint.keyRequired && !apiKey)
    return { reason: `the ${provider} search provider needs an API key: set ${endpoint.key}` }
  const timeout = section.timeout
  if (timeout !== undefined && (typeof timeout !== "number" || !(timeout > 0)))
    return { reason: `"${name}.timeout" must be a number of milliseconds above 0` }
  return { provider, url, apiKey, timeoutMs: (timeout as number | undefined) ?? DEFAULT_SEARCH_TIMEOUT_MS }
}
