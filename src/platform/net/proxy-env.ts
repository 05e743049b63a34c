/** The proxies an environment names, the way curl and undici read them (lower case first). */
export interface ProxyEnv {
  readonly httpProxy: string
  readonly httpsProxy: string
  readonly noProxy: string
}

type Env = Readonly<Record<string, string | undefined>>

/**
 * `HTTP_PROXY`, `HTTPS_PROXY` (falling back to the HTTP proxy, as undici does) and `NO_PROXY`, lower
 * case first. Empty strings mean none, so the agent never falls back to `process.env` behind our back.
 */
export function proxyEnv(env: Env = process.env): ProxyEnv {
  const read = (name: string) => (env[name.toLowerCase()] ?? env[name] ?? "").trim()
  const httpProxy = read("HTTP_PROXY")
  return { httpProxy, httpsProxy: read("HTTPS_PROXY") || httpProxy, noProxy: read("NO_PROXY") }
}

/** Whether a request to `url` may go through a proxy (one is set for its scheme); NO_PROXY is left to the agent. */
export function mayUseProxy(url: URL, proxies: ProxyEnv): boolean {
  return (url.protocol === "https:" ? proxies.httpsProxy : proxies.httpProxy) !== ""
}
