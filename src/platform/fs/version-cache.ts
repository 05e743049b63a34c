import type { FileVersion } from "./read-ledger.ts"
import { hasSettled } from "./settling.ts"

export { SETTLED_MS } from "./settling.ts"

/**
 * Values derived from a file's content (its hash, a formatted page), kept by the file's version:
 * device, inode, size, mtime and ctime, plus a key of the caller's (what was derived, from which
 * path). A file that still has that version still has that content, so the value is reused without
 * reading the file. Versions changed within their settling time (settling.ts: a file's last change must
 * be that old before its stat can stand for its content, git's "racily clean" rule) are never kept. The least recently used
 * entries go first beyond `max`. This holds whoever changes the file, in this process or another: a write
 * in place moves the ctime (which no user call can set back) and an atomic replace brings a new inode, so
 * a kept value is never served for content that another process wrote.
 */
export class VersionCache<T> {
  readonly #entries = new Map<string, T>()
  readonly #max: number

  constructor(max: number) {
    this.#max = max
  }

  get size(): number {
    return this.#entries.size
  }

  get(version: FileVersion, key = ""): T | undefined {
    const id = idOf(version, key)
    const value = this.#entries.get(id)
    if (value !== undefined) {
      // Most recently used last: the first entry is the one to drop.
      this.#entries.delete(id)
      this.#entries.set(id, value)
    }
    return value
  }

  /**
   * Keeps `value` for `version`, unless the file changed too recently to be sure of it. `now` is when the
   * content `value` comes from was read (not later: a change after the read must look different).
   */
  set(version: FileVersion, value: T, key = "", now = Date.now()): void {
    if (!hasSettled(version, now)) return
    const id = idOf(version, key)
    this.#entries.delete(id)
    this.#entries.set(id, value)
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!)
  }
}

function idOf(version: FileVersion, key: string): string {
  return `${version.dev}:${version.ino}:${version.size}:${version.mtimeMs}:${version.ctimeMs}:${key}`
}

/**
 * SHA-256 digests of small files read whole, so that reading an unchanged file again does not hash it
 * again (on a 40 KB file, a fifth of the read tool's work). About 150 bytes an entry.
 */
export const smallFileHashes = new VersionCache<string>(4096)
