import type { Stats } from "node:fs"

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
