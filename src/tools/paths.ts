// Paths as the tools take and show them: resolved against the project, shown relative to the worktree,
// and what is at them.

import type { Stats } from "node:fs"
import { open, stat } from "node:fs/promises"
import { relative, resolve, sep } from "node:path"
import { errorCode } from "../fs/errors.ts"
import { SNIFF_BYTES } from "../fs/text.ts"

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

/** The first `SNIFF_BYTES` of a file: enough to sniff media, binary content and a BOM. */
export async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, "r")
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}
