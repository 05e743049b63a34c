import { BlockList, isIP } from "node:net"
import { type AddressKind, addressKind } from "./address-kind.ts"

/** Which non-public addresses a fetch may reach. The default reaches none. */
export interface AddressPolicy {
  /** Loopback, private, link-local, unique-local and CGNAT addresses are allowed (cloud metadata is not). */
  readonly allowPrivate?: boolean
  /**
   * Hosts reached whatever they resolve to: a name (`intranet.example.com`), a wildcard suffix
   * (`*.corp.example.com`), an IP address, or a CIDR range (`10.1.0.0/16`, matched against the
   * addresses a name resolves to). Naming a metadata address here is the only way to reach it.
   */
  readonly allowHosts?: readonly string[]
}

/** A checked policy: answers for one host and its resolved addresses. */
export interface CompiledPolicy {
  /** Why `address` (resolved from `host`) may not be reached, or undefined when it may. */
  refusal(host: string, address: string): AddressKind | undefined
  /** A fingerprint of the policy, for caches whose answers depend on it. */
  readonly key: string
}

export function compilePolicy(policy: AddressPolicy = {}): CompiledPolicy {
  const names = new Set<string>()
  const suffixes: string[] = []
  const ranges = new BlockList()
  for (const raw of policy.allowHosts ?? []) {
    const entry = raw.trim().toLowerCase().replace(/\.$/, "")
    const bare = entry.startsWith("[") && entry.endsWith("]") ? entry.slice(1, -1) : entry
    const [network, prefix] = bare.split("/")
    const family = isIP(network ?? "")
    if (family) {
      const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix)
      ranges.addSubnet(network!, bits, family === 4 ? "ipv4" : "ipv6")
    } else if (entry.startsWith("*.")) {
      suffixes.push(entry.slice(1))
    } else if (entry) {
      names.add(entry)
    }
  }
  const hostAllowed = (host: string) => {
    const name = host.toLowerCase().replace(/\.$/, "")
    return names.has(name) || suffixes.some((suffix) => name.endsWith(suffix))
  }
  const addressAllowed = (address: string) => {
    const family = isIP(address)
    return family !== 0 && ranges.check(address, family === 4 ? "ipv4" : "ipv6")
  }
  return {
    refusal(host, address) {
      const kind = addressKind(address)
      if (!kind) return undefined
      if (hostAllowed(host) || addressAllowed(address)) return undefined
      if (policy.allowPrivate && kind !== "cloud metadata" && kind !== "reserved") return undefined
      return kind
    },
    key: JSON.stringify([policy.allowPrivate ?? false, [...(policy.allowHosts ?? [])].sort()]),
  }
}
