import type { Dispatcher } from "undici"
import type { ProxyEnv } from "./proxy-env.ts"

type Undici = typeof import("undici")

let loading: Promise<Undici> | undefined

/** undici, loaded on first use: it costs ~70 ms to import, which a start that fetches nothing should not pay. */
export function loadUndici(): Promise<Undici> {
  loading ??= import("undici")
  return loading
}

/**
 * An agent for one fetch (all its hops): the proxies of `proxies` (NO_PROXY honoured by undici's env
 * proxy agent), and, for direct connections, `lookup` in place of DNS (the address guard's pins).
 */
export async function openDispatcher({
  proxies,
  lookup,
}: {
  proxies: ProxyEnv
  lookup?: ((...args: never[]) => void) | undefined
}): Promise<Dispatcher> {
  const { EnvHttpProxyAgent } = await loadUndici()
  return new EnvHttpProxyAgent({
    httpProxy: proxies.httpProxy,
    httpsProxy: proxies.httpsProxy,
    noProxy: proxies.noProxy,
    ...(lookup ? { connect: { lookup: lookup as never } } : {}),
  })
}

/** Ends an agent's connections without waiting on a peer that stopped answering. */
export function closeDispatcher(dispatcher: Dispatcher): void {
  dispatcher.destroy().catch(() => {})
}
