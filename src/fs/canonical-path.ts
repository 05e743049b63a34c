import { realpathSync } from "node:fs"
import { lstat, readlink, realpath } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"

/** Symbolic links followed before giving up, as the kernel does (ELOOP). */
const MAX_HOPS = 40

/**
 * The one spelling of `path` that every writer agrees on: the file a write to `path` lands on.
 *
 * 1. An existing path: its realpath (every symlink followed, `.`/`..` gone).
 * 2. A dangling symlink: the canonical path of its target, since writing through the link creates it.
 * 3. A missing path: the canonical path of its parent joined with its name, recursively, so a file that
 *    does not exist yet gets the same key whichever symlinked directory it is named through.
 * It never throws for a missing or unreadable path; the write that follows reports the real problem.
 */
export async function canonicalPath(path: string): Promise<string> {
  const absolute = resolve(path)
  try {
    // The common case (the path exists), synchronously: realpath(3) takes microseconds, a trip through the
    // thread pool tens of them, and every read and write asks for this key.
    return realpathSync.native(absolute)
  } catch {
    return resolveFrom(absolute, 0)
  }
}

async function resolveFrom(absolute: string, hops: number): Promise<string> {
  try {
    return await realpath(absolute)
  } catch {
    // Missing, dangling, or not searchable: work it out below.
  }
  try {
    const stats = await lstat(absolute)
    if (!stats.isSymbolicLink() || hops >= MAX_HOPS) return absolute
    const target = await readlink(absolute)
    return resolveFrom(resolve(dirname(absolute), target), hops + 1)
  } catch {
    // Nothing at this path: resolve the parent.
  }
  const parent = dirname(absolute)
  if (parent === absolute) return absolute
  return join(await resolveFrom(parent, hops), basename(absolute))
}
