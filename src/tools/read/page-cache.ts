import type { FileVersion } from "../../platform/fs/read-ledger.ts"
import { hasSettled } from "../../platform/fs/settling.ts"

/** A file page as the read tool returns it, before the session's instruction files are added. */
export interface TextPage {
  /** The formatted page: `<path>`, `<type>`, `<content>` with numbered lines and the footer. */
  readonly output: string
  readonly preview: string
  readonly truncated: boolean
  readonly totalLines: number
  /** SHA-256 of the whole file: the read ledger's stamp. */
  readonly hash: string
}

/** Pages kept; a page is at most the 50 KB read budget plus its frame, so a few MB at most. */
export const MAX_PAGES = 64

/**
 * Files up to this size keep their bytes beside their page, so a page of a file changed moments ago is
 * served again once its bytes are seen to be the same (at most MAX_PAGES × this: 4 MiB).
 */
export const KEPT_BYTES = 64 * 1024

interface Entry {
  /** The version the page was derived from, as `fstat` said before the bytes were read. */
  version: FileVersion
  /** Whether that version had settled when its bytes were read (see `settled`). */
  settled: boolean
  readonly page: TextPage
  /** The bytes the page was derived from (files up to KEPT_BYTES). */
  readonly bytes: Buffer | undefined
}

/**
 * The pages of small files read recently, by page and path, each with the file version and bytes it
 * came from. Agents read the same files again and again (after a compaction, from subagents, to check
 * before an edit, or a file they just wrote); a page of the same content is served without decoding,
 * numbering or hashing the file again. Shared by every session: a page depends on the bytes, the path
 * and the page asked for, never on the reader. Two ways to know the content is the same:
 *
 * 1. `settled`: the file has the version the page was derived from, and that version had already
 *    settled when its bytes were read (settling.ts: 50 ms on a local Linux file system with sub-second
 *    times, else 2 s). File times come from a coarse clock (a tick, a second or two on some file
 *    systems, another machine's on a network one), so a write in the same tick leaves size and times
 *    unchanged; a version that old can no longer be followed by one that looks the same, because any
 *    later write moves the ctime (which no user call can set back) past it, and a replacing rename brings
 *    a new inode (git's "racily clean" rule). The file is not read at all.
 * 2. `same`: for any other version, the file's bytes were read again and are equal to the page's.
 *    That holds whatever the clocks say: the page is a function of the bytes. When that read's version
 *    has settled, the entry takes it, and the next read of it needs no read of the file.
 *
 * The least recently used page goes first beyond MAX_PAGES.
 */
export class PageCache {
  readonly #entries = new Map<string, Entry>()
  readonly #max: number

  constructor(max: number) {
    this.#max = max
  }

  get size(): number {
    return this.#entries.size
  }

  /** Rule 1: the page of `version`, when it had settled before its bytes were read. */
  settled(version: FileVersion, key: string): TextPage | undefined {
    const entry = this.#touch(key)
    return entry?.settled && sameVersion(entry.version, version) ? entry.page : undefined
  }

  /**
   * Rule 2: the page of content equal to `bytes`, read with `version` (the `fstat` of the descriptor
   * they were read from, taken before reading) at `now`.
   */
  same(bytes: Buffer, version: FileVersion, key: string, now = Date.now()): TextPage | undefined {
    const entry = this.#touch(key)
    if (!entry?.bytes?.equals(bytes)) return undefined
    // The version labels these bytes only when it has their size (the file may grow between the two).
    if (version.size === bytes.length && hasSettled(version, now)) {
      entry.version = version
      entry.settled = true
    }
    return entry.page
  }

  /**
   * Keeps `page`, derived from `bytes` (when given and up to KEPT_BYTES) read with `version` at `now`.
   * Without bytes, a page of a version that has not settled is not kept: nothing could ever show it is
   * still right.
   */
  set(
    version: FileVersion,
    page: TextPage,
    key: string,
    options: { bytes?: Buffer; now?: number | undefined } = {},
  ): void {
    const settled = hasSettled(version, options.now ?? Date.now())
    const bytes = options.bytes && options.bytes.length <= KEPT_BYTES ? options.bytes : undefined
    this.#entries.delete(key)
    if (!settled && !bytes) return
    this.#entries.set(key, { version, settled, page, bytes })
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!)
  }

  /** The entry for `key`, now the most recently used. */
  #touch(key: string): Entry | undefined {
    const entry = this.#entries.get(key)
    if (entry) {
      this.#entries.delete(key)
      this.#entries.set(key, entry)
    }
    return entry
  }
}

function sameVersion(a: FileVersion, b: FileVersion): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs
  )
}

/** The pages the read tool keeps (see `PageCache`). */
export const recentPages = new PageCache(MAX_PAGES)

/** The cache key of a page of `path`. */
export function pageKey(path: string, offset: number, limit: number): string {
  return `${offset}:${limit}:${path}`
}
