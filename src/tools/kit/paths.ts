// Paths as the tools take and show them: resolved against the project, shown relative to the worktree,
// and what is at them.

import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs"
import { stat } from "node:fs/promises"
import { relative, resolve, sep } from "node:path"
import { errorCode } from "../../platform/fs/errors.ts"
import { openRegular } from "../../platform/fs/open-regular.ts"
import { SNIFF_BYTES } from "../../platform/fs/text.ts"

/** `path` resolved against the project directory (an absolute path is kept, normalised). */
export function resolvePath(directory: string, path: string): string {
  return resolve(directory, path)
}

/**
 * `path` relative to `root`, with `/` separators, as permission patterns and titles show it. A path
 * outside `root` keeps its `../` steps; `root` itself is `.`.
 */
export function relativePath(root: string, path: string): string {
  return toSlash(relative(root, path)) || "."
}

/** `path` with the platform's separators as `/`. */
export function toSlash(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/")
}

/**
 * What is at `path`, or undefined when nothing can be read there: it is missing, under a regular file,
 * or a symlink loop. Other errors (no permission) are thrown.
 */
export async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path)
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return undefined
    throw error
  }
}

/**
 * `statOrUndefined`, synchronously: a stat of a local file takes microseconds, a trip through the thread
 * pool tens of them, which a tool that answers in well under a millisecond (read) notices.
 */
export function statOrUndefinedSync(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return undefined
    throw error
  }
}

/**
 * A regular file's bytes and the stat of the version read, synchronously; undefined when what is at `path`
 * is not (or is no longer) a regular file, or is larger than `maxBytes`. Opened non-blocking, so a FIFO
 * swapped in for the file cannot hang the process. With `into` (at least `maxBytes + 1` long), the bytes
 * are read into it, up to the end of the file, and returned as a view of it: nothing is allocated, and the
 * caller must use or copy them before `into` is read into again. `keep`, once the file is read, may take
 * the descriptor (true: the caller closes it later); otherwise it is closed here.
 */
export function readSmallFileSync(
  path: string,
  maxBytes: number,
  into?: Buffer,
  keep?: (fd: number, stats: Stats) => boolean,
): { bytes: Buffer; stats: Stats } | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  let kept = false
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || stats.size > maxBytes) return undefined
    const bytes = into ? readToEnd(fd, into, maxBytes, stats.size) : readFileSync(fd)
    if (!bytes) return undefined
    kept = keep?.(fd, stats) === true
    return { bytes, stats }
  } finally {
    if (!kept) closeSync(fd)
  }
}

/**
 * The bytes of the open file `fd` from its start to its end, read into `into` (at least `maxBytes + 1`
 * long) and returned as a view of it; undefined past `maxBytes`. `size` is what a stat of it said: the
 * file may have grown since, so it is read to its end. A read that stops short at `size` is the end (a
 * regular file reads short only there), so the usual small file costs one read, not a second one that
 * returns nothing.
 */
export function readToEnd(fd: number, into: Buffer, maxBytes: number, size: number): Buffer | undefined {
  const room = Math.min(into.length, maxBytes + 1)
  let length = 0
  for (;;) {
    const wanted = room - length
    const read = readSync(fd, into, length, wanted, length)
    length += read
    if (read === 0 || length >= room || (read < wanted && length === size)) break
  }
  return length > maxBytes ? undefined : into.subarray(0, length)
}

/**
 * The first `SNIFF_BYTES` of a regular file: enough to sniff media, binary content and a BOM. Anything
 * else (a FIFO swapped in after a stat) throws `NotRegularFileError` instead of blocking.
 */
export async function readHead(path: string): Promise<Buffer> {
  const handle = await openRegular(path)
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}
