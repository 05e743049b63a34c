import { type Stats, statSync } from "node:fs"

/** What a non-regular file is, as an error message names it ("a named pipe (FIFO)", "a socket", ...). */
export function describeFileType(stats: Stats): string {
  if (stats.isFile()) return "a regular file"
  if (stats.isDirectory()) return "a directory"
  if (stats.isFIFO()) return "a named pipe (FIFO)"
  if (stats.isSocket()) return "a socket"
  if (stats.isCharacterDevice()) return "a character device"
  if (stats.isBlockDevice()) return "a block device"
  return "a special file"
}

/**
 * Whether `path` is a regular file, links followed; false when it is missing, a dangling or looping
 * link, or cannot be read. Synchronous: one stat is a few µs, far less than a trip through the thread pool.
 */
export function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false
  } catch {
    return false
  }
}
