import { closeDispatcher, loadUndici, openDispatcher } from "./dispatcher.ts"
import { proxyEnv } from "./proxy-env.ts"

/** `fetch` as the WHATWG API types it, for libraries that take one (the MCP SDK's transports). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>

/**
 * Runs `use` with a fetch for endpoints the user configured (a search API, an MCP server): proxies from
 * `env` honoured (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), no address guard (a self-hosted SearXNG on
 * localhost is the user's choice, not the model's). Its connections are closed when `use` settles.
 */
export async function withEndpointFetch<T>(
  env: Readonly<Record<string, string | undefined>> | undefined,
  use: (fetch: FetchLike) => Promise<T>,
): Promise<T> {
  const undici = await loadUndici()
  const dispatcher = await openDispatcher({ proxies: proxyEnv(env) })
  const fetch: FetchLike = (url, init) =>
    undici.fetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>
  try {
    return await use(fetch)
  } finally {
    closeDispatcher(dispatcher)
  }
}
