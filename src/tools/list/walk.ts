import type { Dirent } from "node:fs"
import { readdir, readFile, stat } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import ignore, { type Ignore } from "ignore"
import { compileGlob, globTooLong } from "../../platform/search/glob.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { contains } from "../kit/external-directory.ts"
import { toSlash } from "../kit/paths.ts"
import { DEFAULT_IGNORED_DIRECTORIES } from "./ignored.ts"
import { type Entry, sortEntries } from "./tree.ts"

/** Files never listed (coverage.py's data file shares its name with the directory above). */
export const DEFAULT_IGNORED_FILES: ReadonlySet<string> = new Set([".coverage", "zig-out"])

export interface WalkOptions {
  /** The directory to list (absolute). */
  readonly root: string
  /** The repository root: its `.gitignore` files (and `.git/info/exclude`) above `root` apply too. */
  readonly worktree: string
  /** Extra globs to leave out: without a `/` they match a name at any depth, with one the relative path. */
  readonly ignore?: readonly string[]
  /** Most entries to return. */
  readonly limit: number
  readonly signal?: AbortSignal
}

export interface WalkResult {
  /** Breadth first: every entry of a level before the next level. */
  readonly entries: Entry[]
  /** True only when at least one entry was left out because of `limit`. */
  readonly truncated: boolean
}

/** The rules of one `.gitignore`, for the paths under `base`. */
interface Rules {
  readonly base: string
  readonly ignore: Ignore
}

interface Pending {
  readonly dir: string
  readonly rules: readonly Rules[]
}

/**
 * Lists the tree under `root`, breadth first, so a capped listing shows the top levels whole.
 *
 * 1. Gather the ignore rules that apply above `root`: `.git/info/exclude` and every `.gitignore` from the
 *    worktree down to `root`.
 * 2. For each directory, level by level: read its own `.gitignore`, then its entries, directories first,
 *    sorted. Skip the default ignores (directories like node_modules, .git, dist), the `ignore` globs,
 *    and what the `.gitignore` rules exclude (the deepest file that decides wins, as in git).
 * 3. Take entries until `limit`; the first entry found beyond it ends the walk with `truncated`.
 * Symbolic links are listed (a link to a directory as a directory) but never followed.
 */
export async function walk(options: WalkOptions): Promise<WalkResult> {
  const { root, limit, signal } = options
  const matchGlob = globMatcher(options.ignore ?? [])
  const entries: Entry[] = []
  let queue: Pending[] = [{ dir: root, rules: await rulesAbove(root, options.worktree) }]
  while (queue.length > 0) {
    const next: Pending[] = []
    for (const { dir, rules: inherited } of queue) {
      signal?.throwIfAborted()
      const own = await loadRules(dir)
      const rules = own ? [...inherited, own] : inherited
      const children = await listDirectory(dir)
      for (const child of children) {
        const path = join(dir, child.name)
        const rel = toSlash(relative(root, path))
        if (
          child.directory
            ? DEFAULT_IGNORED_DIRECTORIES.has(child.name)
            : DEFAULT_IGNORED_FILES.has(child.name)
        )
          continue
        if (matchGlob(rel, child.name, child.directory)) continue
        if (isIgnored(rules, path, child.directory)) continue
        if (entries.length >= limit) return { entries, truncated: true }
        entries.push({ path: rel, directory: child.directory })
        if (child.directory && !child.link) next.push({ dir: path, rules })
      }
    }
    queue = next
  }
  return { entries, truncated: false }
}

interface Child {
  readonly name: string
  readonly directory: boolean
  readonly link: boolean
}

async function listDirectory(dir: string): Promise<Child[]> {
  let dirents: Dirent[]
  try {
    dirents = await readdir(dir, { withFileTypes: true })
  } catch {
    // Unreadable (permissions) or gone meanwhile: list it as empty.
    return []
  }
  const children = await Promise.all(
    dirents.map(async (dirent): Promise<Child> => {
      const link = dirent.isSymbolicLink()
      const directory = dirent.isDirectory() || (link && (await isDirectory(join(dir, dirent.name))))
      return { name: dirent.name, directory, link }
    }),
  )
  return sortEntries(children)
}

/** `.git/info/exclude` and the `.gitignore` files from the worktree down to (not including) `root`. */
async function rulesAbove(root: string, worktree: string): Promise<Rules[]> {
  if (!contains(worktree, root)) return []
  const rules: Rules[] = []
  const exclude = await readRules(join(worktree, ".git", "info", "exclude"), worktree)
  if (exclude) rules.push(exclude)
  const dirs: string[] = []
  for (let dir = dirname(root); contains(worktree, dir); dir = dirname(dir)) {
    dirs.unshift(dir)
    if (dir === worktree || dirname(dir) === dir) break
  }
  for (const dir of dirs) {
    const own = await loadRules(dir)
    if (own) rules.push(own)
  }
  return rules
}

function loadRules(dir: string): Promise<Rules | undefined> {
  return readRules(join(dir, ".gitignore"), dir)
}

async function readRules(file: string, base: string): Promise<Rules | undefined> {
  let text: string
  try {
    text = await readFile(file, "utf8")
  } catch {
    return undefined
  }
  return { base, ignore: ignore().add(text) }
}

/** Whether git would ignore `path`: the deepest rules file with a verdict (ignore or re-include) decides. */
function isIgnored(rules: readonly Rules[], path: string, directory: boolean): boolean {
  for (let index = rules.length - 1; index >= 0; index--) {
    const { base, ignore: matcher } = rules[index]!
    const rel = toSlash(relative(base, path))
    if (rel === "" || rel.startsWith("../")) continue
    const verdict = matcher.test(directory ? `${rel}/` : rel)
    if (verdict.ignored) return true
    if (verdict.unignored) return false
  }
  return false
}

/**
 * The user's ignore globs: a glob without `/` matches the entry's name at any depth, one with `/` its path
 * relative to the listed directory; a trailing `/` limits a glob to directories.
 */
function globMatcher(globs: readonly string[]): (rel: string, name: string, directory: boolean) => boolean {
  const matchers = globs
    .map((glob) => glob.trim())
    .filter((glob) => glob !== "")
    .map((glob) => {
      const tooLong = globTooLong(glob)
      if (tooLong) throw new Tool.ToolFailure(tooLong)
      const onlyDirectories = glob.endsWith("/")
      const pattern = glob.replace(/^\.\//, "").replace(/\/+$/, "")
      const byPath = pattern.includes("/")
      const { matches: test } = compileGlob(pattern)
      return { onlyDirectories, byPath, test }
    })
  return (rel, name, directory) =>
    matchers.some(
      (matcher) => (!matcher.onlyDirectories || directory) && matcher.test(matcher.byPath ? rel : name),
    )
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}
