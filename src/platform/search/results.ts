// Shaping what a backend found into results, the same way for both backends: newest files first, the
// first `limit` matching lines (or files) kept, totals counted over everything.
import type { GrepLine } from "./backend.ts"

/** A file with matching lines (count 0 for `files`, which only lists). */
export interface Hit {
  readonly path: string
  readonly mtimeMs: number
  readonly count: number
}

/** Newest first; equal times by path, so the order never depends on the backend. */
export function newestFirst(
  a: { path: string; mtimeMs: number },
  b: { path: string; mtimeMs: number },
): number {
  return b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
}

/**
 * The first `limit` of `items` in `newestFirst` order, sorted, without sorting them all (a search may find
 * tens of thousands of files and show a hundred).
 */
export function topNewest<T extends { path: string; mtimeMs: number }>(items: T[], limit: number): T[] {
  if (limit >= items.length / 4) return items.sort(newestFirst).slice(0, limit)
  const top = new TopHits<T>(limit)
  for (const item of items) top.add(item)
  return top.items
}

/**
 * Keeps the newest `limit` hits (sorted) of all those added, and counts every one: the files and the
 * matching lines. With no limit it keeps everything, unsorted.
 */
export class TopHits<T extends { path: string; mtimeMs: number; count?: number } = Hit> {
  readonly limit: number
  #items: T[] = []
  files = 0
  matches = 0

  constructor(limit: number) {
    this.limit = limit
  }

  /** Sorted when limited. */
  get items(): T[] {
    return this.#items
  }

  add(item: T): void {
    this.files++
    this.matches += item.count ?? 0
    this.keep(item)
  }

  /** Keeps `item` if it ranks, without counting it (for merging lists already counted). */
  keep(item: T): void {
    const top = this.#items
    const limit = this.limit
    if (limit === Infinity) {
      top.push(item)
      return
    }
    if (top.length === limit && (limit === 0 || newestFirst(item, top[limit - 1]!) >= 0)) return
    let low = 0
    let high = top.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (newestFirst(item, top[middle]!) < 0) high = middle
      else low = middle + 1
    }
    top.splice(low, 0, item)
    if (top.length > limit) top.pop()
  }

  /** Takes the kept hits away (the counts stay). */
  drain(): T[] {
    const items = this.#items
    this.#items = []
    return items
  }
}

/** Content mode: which files (newest first) hold the first `limit` matching lines, and how many of each. */
export function planContent(
  sorted: readonly Hit[],
  limit: number,
  maxCount: number,
): { hit: Hit; quota: number }[] {
  const plan: { hit: Hit; quota: number }[] = []
  let remaining = limit
  for (const hit of sorted) {
    if (remaining <= 0) break
    const quota = Math.min(remaining, hit.count, maxCount)
    plan.push({ hit, quota })
    remaining -= quota
  }
  return plan
}

/**
 * The lines to show from a file's matches and context (ripgrep prints context around every match): the
 * first `quota` matches, and the lines within `before`/`after` of them (as context when they are not
 * kept matches), in line order.
 */
export function trimLines(
  lines: readonly GrepLine[],
  quota: number,
  before: number,
  after: number,
): GrepLine[] {
  const kept = new Set<number>()
  for (const line of lines) {
    if (kept.size >= quota) break
    if (line.match) kept.add(line.line)
  }
  const shown = new Set<number>()
  for (const number of kept) for (let n = number - before; n <= number + after; n++) shown.add(n)
  const out: GrepLine[] = []
  for (const line of lines) {
    if (!shown.has(line.line)) continue
    out.push(kept.has(line.line) ? line : { ...line, match: false })
  }
  return out
}
