import type { FilePart } from "../../platform/text/content.ts"

/** How long a fetched page is reused (Claude Code's WebFetch keeps pages 15 minutes too). */
export const CACHE_TTL_MS = 15 * 60 * 1000

/** What the cache holds at most, in UTF-16 code units and attachment bytes together (~100 MB of memory). */
const CACHE_BUDGET = 50 * 1024 * 1024

/** One converted page, as the tool returned it. */
export interface CachedPage {
  readonly title: string
  readonly output: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly attachments: readonly FilePart[]
}

interface Entry {
  readonly page: CachedPage
  readonly expires: number
  readonly size: number
}

/**
 * Pages fetched in the last 15 minutes, in this process, by key (the URL, the format and the guard's
 * policy: a page fetched while the guard was open is not an answer for a call that has it closed).
 * The oldest entries go first when the budget is spent.
 */
export class PageCache {
  readonly #entries = new Map<string, Entry>()
  #size = 0

  get(key: string, now = Date.now()): CachedPage | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (entry.expires > now) return entry.page
    this.#delete(key, entry)
    return undefined
  }

  set(key: string, page: CachedPage, now = Date.now()): void {
    const size = page.output.length + page.attachments.reduce((sum, part) => sum + part.url.length, 0)
    if (size > CACHE_BUDGET) return
    const old = this.#entries.get(key)
    if (old) this.#delete(key, old)
    this.#entries.set(key, { page, expires: now + CACHE_TTL_MS, size })
    this.#size += size
    for (const [oldest, entry] of this.#entries) {
      if (this.#size <= CACHE_BUDGET) break
      this.#delete(oldest, entry)
    }
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key)
    this.#size -= entry.size
  }
}

export function cacheKey({ url, format, policy }: { url: string; format: string; policy: string }): string {
  return `${policy}\n${format}\n${url}`
}
