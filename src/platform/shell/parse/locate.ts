import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs"
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import type { PathKind } from "./operand-table.ts"

/**
 * Where a path really is, the way the kernel will see it: symlinks followed, `..` applied physically
 * (`link/..` is the link target's parent, not the directory holding the link). A path that does not exist
 * yet is located through its nearest existing ancestor, and a dangling symlink through its target, since
 * writing through it creates the target.
 */
export interface Located {
  /** The real absolute path (missing components joined lexically onto the real ancestor). */
  readonly real: string
  readonly exists: boolean
  readonly isDirectory: boolean
}

/** Symbolic links followed before giving up, as the kernel does (ELOOP). */
const MAX_HOPS = 40

/**
 * Locates an absolute path (it may contain `.`, `..` and `//`, which are applied physically).
 * Synchronous on purpose: a few cached-dentry syscalls cost microseconds, while a round trip through
 * libuv's thread pool per call made a scan ten times slower.
 */
export function locate(path: string, hops = 0): Located {
  try {
    // stat first: a missing path is common, and an exception from realpath is slow.
    const stats = statSync(path, { throwIfNoEntry: false })
    if (stats) return { real: realpathSync.native(path), exists: true, isDirectory: stats.isDirectory() }
  } catch {
    // Looping or unreadable: work it out below.
  }
  if (hops < MAX_HOPS) {
    try {
      const stats = lstatSync(path, { throwIfNoEntry: false })
      if (stats?.isSymbolicLink()) {
        const target = readlinkSync(path)
        // Not `join`: it would apply the target's `..` lexically, and the link's directory may be a link.
        return locate(isAbsolute(target) ? target : `${dirname(path)}/${target}`, hops + 1)
      }
    } catch {
      // Nothing there: locate the parent.
    }
  }
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path
  const parent = dirname(trimmed)
  if (parent === trimmed) return { real: resolve(path), exists: false, isDirectory: false }
  const located = locate(parent, hops)
  return { real: join(located.real, basename(trimmed)), exists: false, isDirectory: false }
}

/** Whether `path` is `root` or inside it (both absolute). */
export function contains(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/**
 * The directory to ask `external_directory` for, when `path` (absolute) lies outside every root (real
 * paths): the path itself for a directory, its parent for a file. Undefined when it is inside a root.
 */
export function externalDirectory(
  path: string,
  kind: PathKind,
  roots: readonly string[],
): string | undefined {
  const located = locate(path)
  if (roots.some((root) => contains(root, located.real))) return undefined
  const directory = kind === "dir" || (kind === "auto" && located.isDirectory)
  return directory ? located.real : dirname(located.real)
}

const rootCache = new Map<string, string>()
const ROOT_CACHE_LIMIT = 256

/** The real path of a project root (cached: roots do not move while a process runs). */
export function realRoot(path: string): string {
  const absolute = resolve(path)
  let real = rootCache.get(absolute)
  if (real === undefined) {
    real = locate(absolute).real
    if (rootCache.size >= ROOT_CACHE_LIMIT) rootCache.clear()
    rootCache.set(absolute, real)
  }
  return real
}

/** Device files that are never "outside the project" in any meaningful sense. */
export function isHarmlessDevice(path: string): boolean {
  return (
    path === "/dev/null" ||
    path === "/dev/stdin" ||
    path === "/dev/stdout" ||
    path === "/dev/stderr" ||
    path === "/dev/tty" ||
    path === "/dev/zero" ||
    path === "/dev/random" ||
    path === "/dev/urandom" ||
    /^\/dev\/fd\/[0-9]+$/.test(path)
  )
}
