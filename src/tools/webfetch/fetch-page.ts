import type { AddressPolicy } from "../../platform/net/address-policy.ts"
import { FetchError } from "../../platform/net/errors.ts"
import { guardedFetch } from "../../platform/net/guarded-fetch.ts"
import { readCapped } from "../../platform/net/read-capped.ts"
import { type Format, HONEST_USER_AGENT, requestHeaders } from "./request-headers.ts"

/** The largest body webfetch reads (opencode's limit). */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024

/** A page as it arrived: where it ended up, what it says it is, and its (decompressed) bytes. */
export interface FetchedPage {
  readonly url: URL
  readonly status: number
  readonly contentType: string
  readonly bytes: Uint8Array
  readonly redirects: readonly string[]
}

const CHALLENGED = Symbol("cloudflare challenge")

/**
 * GETs a page through the address guard, its body capped at 5 MB while it streams.
 * 1. Ask as a browser, with an Accept weighted to the format.
 * 2. A 403 that Cloudflare marks as a challenge (`cf-mitigated: challenge`) is asked once more as
 *    `toolbelt` (opencode does the same: Cloudflare often lets a named agent through).
 * 3. Any other status outside 2xx is an error that names it; its body is not read.
 */
export async function fetchPage({
  url,
  format,
  policy,
  env,
  signal,
}: {
  url: URL
  format: Format
  policy: AddressPolicy
  env: Readonly<Record<string, string | undefined>>
  signal: AbortSignal
}): Promise<FetchedPage> {
  const first = await attempt({ url, headers: requestHeaders(format), policy, env, signal })
  if (first !== CHALLENGED) return first
  const second = await attempt({
    url,
    headers: requestHeaders(format, HONEST_USER_AGENT),
    policy,
    env,
    signal,
  })
  if (second === CHALLENGED)
    throw new FetchError(
      `Request failed with status 403: ${url.href} is behind a Cloudflare challenge that needs a browser.`,
    )
  return second
}

async function attempt({
  url,
  headers,
  policy,
  env,
  signal,
}: {
  url: URL
  headers: Record<string, string>
  policy: AddressPolicy
  env: Readonly<Record<string, string | undefined>>
  signal: AbortSignal
}): Promise<FetchedPage | typeof CHALLENGED> {
  return guardedFetch(
    { url, headers, policy, env, signal },
    async ({ response, url: finalUrl, redirects }) => {
      if (response.status === 403 && response.headers.get("cf-mitigated") === "challenge") {
        await response.body?.cancel().catch(() => {})
        return CHALLENGED
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => {})
        const text = response.statusText ? ` (${response.statusText})` : ""
        const hint = statusHint(response.status)
        throw new FetchError(
          `Request failed with status ${response.status}${text}: ${finalUrl.href}. ${hint}`,
        )
      }
      const bytes = await readCapped(response, MAX_RESPONSE_BYTES)
      return {
        url: finalUrl,
        status: response.status,
        contentType: response.headers.get("content-type") ?? "",
        bytes,
        redirects,
      }
    },
  )
}

/** What to do about a page's HTTP error status, as a sentence. */
function statusHint(status: number): string {
  if (status === 401 || status === 403)
    return "The page needs a login or refuses automated requests: use another source."
  if (status === 429) return "The site's rate limit was reached: wait before fetching from it again."
  if (status >= 500) return "The site failed: try again in a moment."
  return "Check the URL."
}
