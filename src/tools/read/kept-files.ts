// Small files read moments ago, kept open while their last change is too recent for their page to be
// trusted by a stat alone (page-cache.ts): each read of such a file must read its bytes, and a file read
// again and again just after it was written (an agent checking what it wrote) is then one positional
// read instead of open, stat, read and close: four system calls of five, 30-40 µs a read here.
import { close, closeSync, type Stats } from "node:fs"
import { settlingMs } from "../../platform/fs/settling.ts"
import { readSmallFileSync, readToEnd } from "../kit/paths.ts"

/** Files kept open at most; the least recently read is closed first. */
export const MAX_KEPT_FILES = 8

/** A file is closed this long after its last change at the latest: its page can be trusted by then. */
const CLOSE_AFTER_SETTLED_MS = 100

interface Kept {
  readonly fd: number
  readonly dev: number
  readonly ino: number
  readonly timer: ReturnType<typeof setTimeout>
}

/** Path → the descriptor kept for it, least recently read first. */
const kept = new Map<string, Kept>()

/**
 * The bytes of the regular file at `path` (at most `maxBytes`), read into `into` (at least `maxBytes + 1`
 * long), and the stat of the version read; undefined when it is not, or no longer, a regular file of at
 * most `maxBytes`. `stats` is a stat of `path` taken just before: when the descriptor kept for `path` is
 * still that file (same device and inode), it is read there, and `stats` is the version (as a stat of
 * the descriptor before reading would be). Otherwise the file is opened (non-blocking: a FIFO swapped in
 * cannot hang the process), and kept open if it changed too recently to be trusted by its stat.
 * Never on Windows, where an open file can keep its directory from being removed.
 */
export function readKept(
  path: string,
  stats: Stats,
  maxBytes: number,
  into: Buffer,
  now = Date.now(),
): { bytes: Buffer; stats: Stats } | undefined {
  if (process.platform === "win32") return readSmallFileSync(path, maxBytes, into)
  const known = kept.get(path)
  if (known) {
    kept.delete(path)
    if (known.dev === stats.dev && known.ino === stats.ino && stats.isFile() && stats.size <= maxBytes) {
      try {
        const bytes = readToEnd(known.fd, into, maxBytes, stats.size)
        // Most recently read last.
        kept.set(path, known)
        return bytes ? { bytes, stats } : undefined
      } catch {
        // An error on the kept descriptor (the file system went away): opened anew below.
      }
    }
    release(known)
  }
  return readSmallFileSync(path, maxBytes, into, (fd, opened) => keepIfFresh(path, fd, opened, now))
}

/** Keeps `fd` open for `path` while its change is too recent to trust its stat; false when settled. */
function keepIfFresh(path: string, fd: number, opened: Stats, now: number): boolean {
  const settlesIn = settlingMs(opened) - (now - Math.max(opened.mtimeMs, opened.ctimeMs))
  if (settlesIn <= 0) return false
  const timer = setTimeout(() => closeKept(path, fd), settlesIn + CLOSE_AFTER_SETTLED_MS)
  timer.unref()
  kept.set(path, { fd, dev: opened.dev, ino: opened.ino, timer })
  if (kept.size > MAX_KEPT_FILES) {
    const [oldest, entry] = kept.entries().next().value as [string, Kept]
    kept.delete(oldest)
    release(entry)
  }
  return true
}

/** How many files are kept open (for tests). */
export function keptFiles(): number {
  return kept.size
}

/** Closes every kept file, before it returns. */
export function closeKeptFiles(): void {
  for (const entry of kept.values()) {
    clearTimeout(entry.timer)
    try {
      closeSync(entry.fd)
    } catch {
      // Already closed: nothing to release.
    }
  }
  kept.clear()
}

function closeKept(path: string, fd: number): void {
  const entry = kept.get(path)
  if (entry?.fd !== fd) return
  kept.delete(path)
  release(entry)
}

/**
 * Closes a kept file off the calling thread: the last close of a file replaced since (renamed over,
 * deleted) frees its inode and pages, 0.3-0.4 ms here, which the writer's rename would otherwise have paid.
 */
function release(entry: Kept): void {
  clearTimeout(entry.timer)
  close(entry.fd, () => {
    // Closed, or already closed: nothing more to release.
  })
}
