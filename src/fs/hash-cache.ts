import type { PageFileVersion } from "./read-lines.ts"

/**
 * A file's last change must be at least this old before its hash is remembered. File times come from
 * a coarse clock (a few ms on Linux), so a write in the same tick as the one hashed can leave size and
 * times unchanged; a change this old can no longer be followed by one that looks the same, because
 * any later write moves ctime past it. (git's "racily clean" rule.)
 */
export const SETTLED_MS = 2000

/** How many files' hashes are kept (a key and a hex digest: about 150 bytes each). */
export const MAX_ENTRIES = 4096

/**
 * SHA-256 digests of small files by identity (device, inode, size, mtime, ctime), so that reading an
 * unchanged file again does not hash it again: on a 40 KB file hashing is a fifth of the read tool's
 * work. Identity, not path: a rename keeps the content and the inode.
 */
export class HashCache {
  readonly #entries = new Map<string, string>()
  readonly #max: number

  constructor(max = MAX_ENTRIES) {
    this.#max = max
  }

  get size(): number {
    return this.#entries.size
  }

  /** The digest remembered for this version of a file, if any. */
  get(version: PageFileVersion): string | undefined {
    const key = keyOf(version)
    const hash = this.#entries.get(key)
    if (hash !== undefined) {
      // Most recently used last: the first entry is the one to drop.
      this.#entries.delete(key)
      this.#entries.set(key, hash)
    }
    return hash
  }

  /** Remembers `hash` as the digest of `version`, unless the file changed too recently to be sure. */
  set(version: PageFileVersion, hash: string, now = Date.now()): void {
    if (now - Math.max(version.mtimeMs, version.ctimeMs) < SETTLED_MS) return
    const key = keyOf(version)
    this.#entries.delete(key)
    this.#entries.set(key, hash)
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!)
  }
}

function keyOf(version: PageFileVersion): string {
  return `${version.dev}:${version.ino}:${version.size}:${version.mtimeMs}:${version.ctimeMs}`
}

/** The process's cache, shared by every read of a whole small file. */
export const smallFileHashes = new HashCache()
