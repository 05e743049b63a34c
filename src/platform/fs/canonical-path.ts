import { lstatSync, readlinkSync, realpathSync } from "node:fs"
import { basename, dirname, isAbsolute, join, parse, resolve, sep } from "node:path"

/** Symbolic links followed before giving up, as the kernel does (ELOOP). */
const MAX_HOPS = 40

/**
 * The one spelling of `path` that every writer and every permission check agrees on: the file a write to
 * `path` lands on. The external-directory guard decides on it and `writeFileAtomic` writes to it, so the
 * two can never disagree about where a write goes.
 *
 * 1. An existing path: its realpath (every symlink followed, `.`/`..` gone).
 * 2. Otherwise the path is walked one component at a time from its deepest ancestor that resolves, as the
 *    kernel walks it when the write creates it: a symlink, dangling or not, is replaced by its target
 *    (relative targets against the link's real directory, `..` after the link's target, chains of
 *    links); a missing component ends the walk and the rest is appended as written.
 * 3. More than 40 links (a loop): the walk stops and the rest is appended; the write then fails (ELOOP).
 * The result contains no symlink that existed when it was computed. It never throws for a missing or
 * unreadable path; the write that follows reports the real problem.
 */
export async function canonicalPath(path: string): Promise<string> {
  return canonicalPathSync(path)
}

/**
 * `canonicalPath`, synchronously: realpath(3) and lstat(2) of local paths take microseconds, a trip
 * through the thread pool tens of them, and every read, write and permission check asks for this key.
 */
export function canonicalPathSync(path: string): string {
  const absolute = resolve(path)
  const real = realpathOrUndefined(absolute)
  if (real !== undefined) return real
  // The deepest ancestor that resolves is walked by realpath; below it, one component at a time.
  const rest: string[] = []
  let base = absolute
  for (;;) {
    const parent = dirname(base)
    if (parent === base) break
    rest.unshift(basename(base))
    base = parent
    const resolved = realpathOrUndefined(base)
    if (resolved !== undefined) {
      base = resolved
      break
    }
  }
  return walk(base, rest)
}

/** Follows `names` from the real directory `base`, expanding symlinks as the kernel would. */
function walk(base: string, names: string[]): string {
  let current = base
  let hops = 0
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!
    if (name === "" || name === ".") continue
    if (name === "..") {
      current = dirname(current)
      continue
    }
    const next = join(current, name)
    const entry = inspect(next)
    if (entry.kind === "missing") return appendLexically(next, names.slice(index + 1))
    if (entry.kind === "other") {
      current = next
      continue
    }
    if (++hops > MAX_HOPS) return appendLexically(next, names.slice(index + 1))
    // The link's target takes its place; the names after the link follow the target.
    if (isAbsolute(entry.target)) current = parse(entry.target).root
    names.splice(index, 1, ...entry.target.split(SEPARATORS))
    index--
  }
  return current
}

/** `names` joined under `base` as written, `..` taking one step up: nothing below `base` exists. */
function appendLexically(base: string, names: readonly string[]): string {
  return names.length === 0 ? base : resolve(base, ...names)
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path)
  } catch {
    return undefined
  }
}

const SEPARATORS = sep === "\\" ? /[\\/]+/ : /\/+/

type Entry = { kind: "missing" } | { kind: "link"; target: string } | { kind: "other" }

/** What is at `path` itself (a symlink is not followed); an unreadable path counts as missing. */
function inspect(path: string): Entry {
  try {
    if (!lstatSync(path).isSymbolicLink()) return { kind: "other" }
    return { kind: "link", target: readlinkSync(path) }
  } catch {
    return { kind: "missing" }
  }
}
