import type { LookupAddress, LookupOptions } from "node:dns"
import type { ResolvedAddress } from "./resolve-host.ts"

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/**
 * The addresses the guard checked, by host name, and a `lookup` for `net.connect` that answers from
 * them only. A connection then goes to an address that was checked, never to what a second DNS answer
 * says (DNS rebinding). A name that was not checked cannot be connected to at all.
 */
export class PinnedAddresses {
  readonly #pins = new Map<string, readonly ResolvedAddress[]>()

  pin(host: string, addresses: readonly ResolvedAddress[]): void {
    this.#pins.set(host.toLowerCase(), addresses)
  }

  /** `lookup` as `net.connect` and `tls.connect` call it (with `all` when they try every family). */
  readonly lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const pinned = this.#pins.get(hostname.toLowerCase())
    if (!pinned || pinned.length === 0) {
      const error: NodeJS.ErrnoException = new Error(
        `${hostname} was not checked by the address guard, so it is not connected to.`,
      )
      error.code = "ENOTFOUND"
      queueMicrotask(() => callback(error, ""))
      return
    }
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined
    const matching = wanted ? pinned.filter((entry) => entry.family === wanted) : pinned
    const answer = matching.length ? matching : pinned
    queueMicrotask(() => {
      if (options.all)
        callback(
          null,
          answer.map(({ address, family }) => ({ address, family })),
        )
      else callback(null, answer[0]!.address, answer[0]!.family)
    })
  }
}
