// ripgrep's `--glob` is an override: a file it matches is listed even when an ignore file (or the hidden
// rule) would skip it. The ripgrep backend still lists files with `--glob` for name globs, because it
// spares rg the ignore checks of every file it does not list (about a fifth of rg's CPU time on the
// Linux tree, against `--type`), and this filter takes out what the ignore rules would have skipped.
// rg also lists the ignore files it passes (the backend adds them as globs), so no directory is probed
// for them, and the stat workers find the repositories on the way (`git-dirs.ts`): most often no rule
// can apply, and nothing is looked at twice.
import { statSync } from "node:fs"
import { IGNORE, NONE, type Verdict, WHITELIST } from "./ignore-file.ts"
import { IgnoreLevel, readLevel } from "./walk.ts"

/** The names of the ignore files a directory may hold, as globs for rg to list them too. */
export const IGNORE_FILE_GLOBS = ["--glob", ".gitignore", "--glob", ".ignore", "--glob", ".rgignore"]

const IGNORE_FILE_NAMES = new Set([".gitignore", ".ignore", ".rgignore"])

export class LeakFilter {
  readonly #root: string
  readonly #hidden: boolean
  /** Ignore files rg listed, by directory (root-relative, "" for the root). */
  readonly #listed = new Map<string, string[]>()
  readonly #levels = new Map<string, { level: IgnoreLevel; git: boolean }>()
  readonly #dirs = new Map<string, boolean>()
  /** rg listed every directory it entered (it was not stopped early). */
  #complete = true

  constructor(root: string, hidden: boolean) {
    this.#root = root
    this.#hidden = hidden
  }

  /** rg listed `name` in `dir`: an ignore file is remembered. Call for every file before `allowed`. */
  saw(dir: string, name: string): void {
    if (!IGNORE_FILE_NAMES.has(name)) return
    let names = this.#listed.get(dir)
    if (!names) {
      names = []
      this.#listed.set(dir, names)
    }
    names.push(name)
  }

  /** rg was stopped before it listed everything: directories are probed for their ignore files. */
  incomplete(): void {
    this.#complete = false
  }

  /**
   * Whether no ignore rule can apply to any listed file, so nothing needs a second look (hidden files
   * aside): no `.ignore` or `.rgignore` was listed, the directories above the root add no rules, and no
   * repository holds the root or a directory on the way to a listed file (`gitDirs`, below the root), so
   * no `.gitignore` or exclude file counts.
   */
  quiet(gitDirs: readonly string[]): boolean {
    if (gitDirs.length > 0 || !this.#complete) return false
    for (const names of this.#listed.values()) if (names.some((name) => name !== ".gitignore")) return false
    const above = IgnoreLevel.above(this.#root)
    if (above.anyGit || above.active.length > 0) return false
    return statSync(`${this.#root}/.git`, { throwIfNoEntry: false }) === undefined
  }

  /** Whether the ignore rules (and the hidden rule) let the file at `rel` (root-relative) be listed. */
  allowed(rel: string): boolean {
    const slash = rel.lastIndexOf("/")
    const dir = slash < 0 ? "" : rel.slice(0, slash)
    return this.#dirAllowed(dir) && this.#entryAllowed(dir, slash < 0 ? rel : rel.slice(slash + 1), false)
  }

  #dirAllowed(dir: string): boolean {
    if (dir === "") return true
    const known = this.#dirs.get(dir)
    if (known !== undefined) return known
    const slash = dir.lastIndexOf("/")
    const parent = slash < 0 ? "" : dir.slice(0, slash)
    const allowed = this.#dirAllowed(parent) && this.#entryAllowed(parent, dir.slice(slash + 1), true)
    this.#dirs.set(dir, allowed)
    return allowed
  }

  /** The walker's rule (`walk.ts`): an ignore verdict skips; a hidden name needs a whitelist verdict. */
  #entryAllowed(dir: string, name: string, isDir: boolean): boolean {
    const level = this.#level(dir)
    let verdict: Verdict = NONE
    if (level.active.length > 0) {
      verdict = level.verdict(dir === "" ? name : `${dir}/${name}`, name, isDir)
      if (verdict === IGNORE) return false
    }
    return this.#hidden || name.charCodeAt(0) !== 46 || verdict === WHITELIST
  }

  #level(dir: string): IgnoreLevel {
    return this.#levelOf(dir).level
  }

  /**
   * The rules in force in `dir`, and whether it or a directory above it holds `.git` (a `.gitignore`
   * counts only then, so the others are never read).
   */
  #levelOf(dir: string): { level: IgnoreLevel; git: boolean } {
    const known = this.#levels.get(dir)
    if (known) return known
    let parent: { level: IgnoreLevel; git: boolean }
    if (dir === "") {
      const above = IgnoreLevel.above(this.#root)
      parent = { level: above, git: above.anyGit }
    } else {
      const slash = dir.lastIndexOf("/")
      parent = this.#levelOf(slash < 0 ? "" : dir.slice(0, slash))
    }
    const abs = dir === "" ? this.#root : `${this.#root}/${dir}`
    let present: Set<string> | undefined
    if (this.#complete) {
      const hasGit = statSync(`${abs}/.git`, { throwIfNoEntry: false }) !== undefined
      present = new Set(hasGit ? [".git"] : [])
      for (const name of this.#listed.get(dir) ?? []) {
        if (name !== ".gitignore" || hasGit || parent.git) present.add(name)
      }
    }
    const { files, hasGit } = present?.size === 0 ? NOTHING : readLevel(abs, present)
    const entry = { level: parent.level.child(dir, files, hasGit), git: parent.git || hasGit }
    this.#levels.set(dir, entry)
    return entry
  }
}

const NOTHING = { files: {}, hasGit: false }
