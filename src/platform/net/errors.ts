import type { AddressKind } from "./address-kind.ts"

/** A fetch that could not be made or finished; the message says what happened and what to do. */
export class FetchError extends Error {
  override readonly name: string = "FetchError"
}

/** The guard refused a host because of where it resolves. */
export class AddressRefused extends FetchError {
  override readonly name = "AddressRefused"
  readonly url: string
  readonly address: string
  readonly kind: AddressKind
  constructor({
    url,
    host,
    address,
    kind,
  }: { url: string; host: string; address: string; kind: AddressKind }) {
    const resolves =
      host === address || host === `[${address}]` ? `${host} is` : `${host} resolves to ${address},`
    super(
      `Refused to fetch ${url}: ${resolves} a ${kind} address. Web tools do not reach loopback, private, link-local, unique-local, CGNAT or cloud metadata addresses unless the config opens the guard: "webfetch": {"allow_private": true} (all but metadata) or {"allow_hosts": ["${host}"]} in toolbelt.json.`,
    )
    this.url = url
    this.address = address
    this.kind = kind
  }
}

/** The body was larger than the cap (said by Content-Length, or counted while streaming). */
export class TooLarge extends FetchError {
  override readonly name = "TooLarge"
  readonly limit: number
  constructor(limit: number, declared?: number) {
    const mb = `${Math.round(limit / (1024 * 1024))} MB`
    super(
      declared !== undefined
        ? `Response too large: its Content-Length is ${declared} bytes, more than the ${mb} limit.`
        : `Response too large: the body passed the ${mb} limit and was not read further.`,
    )
    this.limit = limit
  }
}

/** The network error code of an error or its causes (ECONNREFUSED, ENOTFOUND, ...), if any. */
export function networkCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** The innermost message of an error chain (`fetch failed` hides the reason in its cause). */
export function rootMessage(error: unknown): string {
  let current = error
  for (let depth = 0; depth < 5; depth++) {
    const cause = (current as { cause?: unknown } | undefined)?.cause
    if (!(cause instanceof Error)) break
    current = cause
  }
  return current instanceof Error ? current.message : String(current)
}
