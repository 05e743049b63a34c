import { lookup } from "node:dns/promises"
import { isIP } from "node:net"

/** One resolved address, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Resolves a host name to every address it has (the system resolver by default; tests give their own). */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>

export const systemResolver: Resolver = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true })
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))
}

/** A URL's host without IPv6 brackets: what a connection is made to. */
export function bareHost(url: URL): string {
  const host = url.hostname
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
}

/**
 * Every address `host` resolves to: an IP literal is itself; a name goes to the resolver, raced against
 * `signal` (a lookup cannot be cancelled, but the caller need not wait for it).
 */
export async function resolveHost(
  host: string,
  {
    resolver = systemResolver,
    signal,
  }: { resolver?: Resolver | undefined; signal?: AbortSignal | undefined },
): Promise<readonly ResolvedAddress[]> {
  const family = isIP(host)
  if (family) return [{ address: host, family: family === 6 ? 6 : 4 }]
  signal?.throwIfAborted()
  if (!signal) return resolver(host)
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    signal.addEventListener("abort", onAbort, { once: true })
  })
  try {
    return await Promise.race([resolver(host), aborted])
  } finally {
    signal.removeEventListener("abort", onAbort!)
  }
}
