import type { Response } from "undici"
import { type AddressPolicy, type CompiledPolicy, compilePolicy } from "./address-policy.ts"
import { closeDispatcher, loadUndici, openDispatcher } from "./dispatcher.ts"
import { AddressRefused, FetchError, networkCode, rootMessage } from "./errors.ts"
import { PinnedAddresses } from "./pinned-lookup.ts"
import { mayUseProxy, type ProxyEnv, proxyEnv } from "./proxy-env.ts"
import { bareHost, type Resolver, resolveHost } from "./resolve-host.ts"

/** How many redirects a fetch follows before giving up. */
export const MAX_REDIRECTS = 10

const REDIRECTS = new Set([301, 302, 303, 307, 308])

export interface GuardedRequest {
  readonly url: string | URL
  readonly headers?: Readonly<Record<string, string>>
  /** Which non-public addresses may be reached (default: none). */
  readonly policy?: AddressPolicy | undefined
  readonly signal?: AbortSignal | undefined
  readonly maxRedirects?: number | undefined
  /** Where the proxy variables are read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** Resolves host names (default: the system resolver). */
  readonly resolver?: Resolver | undefined
}

/** The last hop's response, with where it came from. */
export interface GuardedResponse {
  readonly response: Response
  /** The final URL, after redirects. */
  readonly url: URL
  /** The URLs that redirected, in order. */
  readonly redirects: readonly string[]
}

/**
 * A GET that cannot be steered into the machine's own network, handed to `consume` while its
 * connection is open (the agent is closed when `consume` settles).
 * 1. Each hop's URL must be http or https; its host is resolved and every address checked against the
 *    policy (loopback, private, link-local, unique-local, CGNAT and metadata refused by default).
 * 2. The checked addresses are pinned: the connection's own lookup answers from them, so a second DNS
 *    answer cannot move it (rebinding). Behind a proxy (HTTP_PROXY/HTTPS_PROXY, NO_PROXY honoured) the
 *    proxy resolves names; a name that does not resolve here goes to the proxy unchecked, and if
 *    NO_PROXY sends it direct after all, the pinned lookup refuses it.
 * 3. Redirects are followed by hand, up to `maxRedirects`, each hop checked again from step 1.
 */
export async function guardedFetch<T>(
  request: GuardedRequest,
  consume: (answer: GuardedResponse) => Promise<T>,
): Promise<T> {
  const policy = compilePolicy(request.policy)
  const proxies = proxyEnv(request.env)
  const pins = new PinnedAddresses()
  const { fetch } = await loadUndici()
  const dispatcher = await openDispatcher({ proxies, lookup: pins.lookup })
  const maxRedirects = request.maxRedirects ?? MAX_REDIRECTS
  const redirects: string[] = []
  try {
    let url = parseHttpUrl(request.url)
    for (;;) {
      await checkHop({ url, policy, proxies, pins, request })
      let response: Response
      try {
        response = await fetch(url, {
          headers: { ...request.headers },
          redirect: "manual",
          dispatcher,
          ...(request.signal ? { signal: request.signal } : {}),
        })
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason
        throw new FetchError(
          `Could not fetch ${url.href}: ${describeNetworkError(error)}. Check the address and the network (or the proxy: HTTPS_PROXY), then try again.`,
          { cause: error },
        )
      }
      const location = response.headers.get("location")
      if (!REDIRECTS.has(response.status) || !location) return await consume({ response, url, redirects })
      await response.body?.cancel().catch(() => {})
      if (redirects.length >= maxRedirects)
        throw new FetchError(
          `Too many redirects: ${request.url} redirected more than ${maxRedirects} times (last to ${location}). Try the last address directly, or another page: this one may redirect in a loop.`,
        )
      redirects.push(url.href)
      url = parseHttpUrl(new URL(location, url).href, url.href)
    }
  } finally {
    closeDispatcher(dispatcher)
  }
}

/** The URL if it is http(s); otherwise a FetchError naming it (and the redirect that led to it). */
export function parseHttpUrl(raw: string | URL, redirectedFrom?: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new FetchError(`Invalid URL: ${raw}. Give a full URL starting with http:// or https://.`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const from = redirectedFrom ? ` (a redirect from ${redirectedFrom})` : ""
    throw new FetchError(`URL must start with http:// or https://: ${url.href}${from}.`)
  }
  if (url.username || url.password)
    throw new FetchError(`URL carries credentials (${url.protocol}//user:password@...); remove them.`)
  return url
}

async function checkHop({
  url,
  policy,
  proxies,
  pins,
  request,
}: {
  url: URL
  policy: CompiledPolicy
  proxies: ProxyEnv
  pins: PinnedAddresses
  request: GuardedRequest
}): Promise<void> {
  const host = bareHost(url)
  let addresses: Awaited<ReturnType<typeof resolveHost>>
  try {
    addresses = await resolveHost(host, { resolver: request.resolver, signal: request.signal })
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason
    // The proxy resolves names this machine cannot; a direct connection to it would find no pin.
    if (mayUseProxy(url, proxies)) return
    throw new FetchError(`Could not resolve ${host} (${describeNetworkError(error)}). Check the URL.`, {
      cause: error,
    })
  }
  if (addresses.length === 0) throw new FetchError(`${host} resolves to no address. Check the URL.`)
  for (const { address } of addresses) {
    const kind = policy.refusal(host, address)
    if (kind) throw new AddressRefused({ url: url.href, host: url.hostname, address, kind })
  }
  pins.pin(host, addresses)
}

function describeNetworkError(error: unknown): string {
  const code = networkCode(error)
  const message = rootMessage(error)
  return code && !message.includes(code) ? `${message} (${code})` : message
}
