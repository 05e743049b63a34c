import { BlockList, isIPv4, isIPv6 } from "node:net"

/** Why an address is not on the public internet (undefined: it is). */
export type AddressKind =
  | "cloud metadata"
  | "loopback"
  | "private"
  | "link-local"
  | "unique-local"
  | "CGNAT"
  | "unspecified"
  | "multicast"
  | "reserved"

// Ranges per kind; the first kind whose list holds an address names it (metadata before link-local).
const RANGES: readonly { kind: AddressKind; v4?: readonly string[]; v6?: readonly string[] }[] = [
  // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle (169.254.169.254); AWS over IPv6; Alibaba; Oracle's other.
  {
    kind: "cloud metadata",
    v4: ["169.254.169.254/32", "100.100.100.200/32", "192.0.0.192/32"],
    v6: ["fd00:ec2::254/128"],
  },
  { kind: "loopback", v4: ["127.0.0.0/8"], v6: ["::1/128"] },
  { kind: "unspecified", v4: ["0.0.0.0/8"], v6: ["::/128"] },
  { kind: "private", v4: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"] },
  { kind: "link-local", v4: ["169.254.0.0/16"], v6: ["fe80::/10"] },
  { kind: "unique-local", v6: ["fc00::/7", "fec0::/10"] },
  { kind: "CGNAT", v4: ["100.64.0.0/10"] },
  { kind: "multicast", v4: ["224.0.0.0/4"], v6: ["ff00::/8"] },
  {
    kind: "reserved",
    // IETF assignments, documentation, benchmarking, future use, broadcast; IPv6 discard and documentation.
    v4: ["192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4"],
    v6: ["100::/64", "2001:db8::/32"],
  },
]

let lists: { kind: AddressKind; list: BlockList }[] | undefined

/** The ranges as block lists, built at the first address checked: node:net costs every start-up otherwise. */
function blockLists(): { kind: AddressKind; list: BlockList }[] {
  lists ??= RANGES.map(({ kind, v4 = [], v6 = [] }) => {
    const list = new BlockList()
    for (const range of v4) addSubnet(list, range, "ipv4")
    for (const range of v6) addSubnet(list, range, "ipv6")
    return { kind, list }
  })
  return lists
}

function addSubnet(list: BlockList, range: string, family: "ipv4" | "ipv6"): void {
  const [network, prefix] = range.split("/")
  list.addSubnet(network!, Number(prefix), family)
}

/**
 * What kind of non-public address `address` is, or undefined for a public one. IPv6 forms that carry an
 * IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
 * are judged by that address, so `::ffff:127.0.0.1` is loopback. Anything that is not an IP address
 * is `reserved`: it can never be connected to as checked.
 */
export function addressKind(address: string): AddressKind | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (isIPv4(bare)) return kindIn(bare, "ipv4")
  if (!isIPv6(bare)) return "reserved"
  const inner = embeddedIPv4(bare)
  if (inner) return kindIn(inner, "ipv4")
  return kindIn(bare, "ipv6")
}

function kindIn(address: string, family: "ipv4" | "ipv6"): AddressKind | undefined {
  for (const { kind, list } of blockLists()) if (list.check(address, family)) return kind
  return undefined
}

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
export function embeddedIPv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address)
  if (!bytes) return undefined
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((byte) => byte === 0)
  const v4 = (offset: number) => Array.from(bytes.subarray(offset, offset + 4)).join(".")
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; ::1 and :: are themselves, not 0.0.0.x).
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12)
  if (zeros(0, 12) && !zeros(12, 15)) return v4(12)
  // 64:ff9b::/96 (NAT64 well-known prefix).
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return v4(12)
  // 2002:AABB:CCDD::/48 (6to4).
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2)
  return undefined
}

/** The 16 bytes of an IPv6 address in any textual form (with `::`, with a dotted IPv4 tail). */
function ipv6Bytes(address: string): Uint8Array | undefined {
  const zone = address.indexOf("%")
  const text = zone >= 0 ? address.slice(0, zone) : address
  const words: number[] = []
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const parse = (part: string): number[] | undefined => {
    if (part === "") return []
    const out: number[] = []
    for (const group of part.split(":")) {
      if (group.includes(".")) {
        const octets = group.split(".").map(Number)
        if (octets.length !== 4 || octets.some((n) => !Number.isInteger(n) || n < 0 || n > 255))
          return undefined
        out.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!)
      } else {
        const value = Number.parseInt(group, 16)
        if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined
        out.push(value)
      }
    }
    return out
  }
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  if (!head || !tail) return undefined
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0
  if (fill < 0 || (halves.length === 1 && head.length !== 8)) return undefined
  words.push(...head, ...new Array<number>(fill).fill(0), ...tail)
  const bytes = new Uint8Array(16)
  words.forEach((word, index) => {
    bytes[index * 2] = word >> 8
    bytes[index * 2 + 1] = word & 0xff
  })
  return bytes
}
