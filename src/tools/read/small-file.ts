// A small file read whole, and compared with the page kept for it (page-cache.ts) before anything is
// copied: the read tool's way in for files up to its whole-file limit.
import type { Stats } from "node:fs"
import { noteFileSystem } from "../../platform/fs/settling.ts"
import { readKept } from "./kept-files.ts"
import { recentPages, type TextPage } from "./page-cache.ts"

/** Where small files are read to be compared with a kept page's bytes: only a miss copies them out. */
let scratch = Buffer.alloc(0)

/**
 * A file of at most `maxBytes` read whole into `scratch` and compared there, in one synchronous step (no
 * other call's read can come between), with the page kept for `key`: that page when the bytes are the
 * same, else a copy of the bytes. A file written moments ago and read again (its page kept by its bytes)
 * then costs no allocation: a 40 KB buffer a call was most of such a read's garbage; nor an open, since
 * such a file stays open a moment (kept-files.ts). `stats` is the stat of `filepath` just taken. Undefined
 * when it is not (or no longer) a regular file of at most `maxBytes`. `readAt` is when the bytes were
 * read: what is kept of them is judged settled or not as of then.
 */
export function readSmallFile(
  filepath: string,
  stats: Stats,
  key: string,
  maxBytes: number,
):
  | { stats: Stats; length: number; same: TextPage | undefined; bytes: Buffer | undefined; readAt: number }
  | undefined {
  if (scratch.length < maxBytes + 1) scratch = Buffer.allocUnsafe(maxBytes + 1)
  // Taken before the read: whatever is derived from these bytes is judged settled or not as of then, by
  // the settling time of the file's file system (a statfs, once per device).
  noteFileSystem(filepath, stats.dev)
  const readAt = Date.now()
  const read = readKept(filepath, stats, maxBytes, scratch, readAt)
  if (!read) return undefined
  const same = recentPages.same(read.bytes, versionOf(read.stats), key, readAt)
  return {
    stats: read.stats,
    length: read.bytes.length,
    same,
    bytes: same ? undefined : Buffer.from(read.bytes),
    readAt,
  }
}

/** The version facts of a stat, as a page reports them. */
export function versionOf(stats: Stats) {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, dev: stats.dev }
}
