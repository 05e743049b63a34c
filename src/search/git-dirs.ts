// Which directories hold `.git`, looked up beside each stat of a listed file: the ripgrep backend's leak
// filter needs to know about every repository on the way to a listed file (its `.gitignore` files count
// only inside one, and its `info/exclude` adds rules), and this keeps that per-directory bookkeeping out
// of the calling thread (a set of every directory there made its young generation grow for good).
import { statSync } from "node:fs"

export class GitDirs {
  readonly #root: string
  readonly #seen = new Set<string>()
  /** Directories below the root that hold `.git` (absolute). */
  readonly found: string[] = []

  /** `root`: the search root (absolute); it is not looked at itself. */
  constructor(root: string) {
    this.#root = root.length > 1 && root.endsWith("/") ? root.slice(0, -1) : root
  }

  /** Looks at the directory of `path` (absolute, below the root) and those above it, up to the root. */
  check(path: string): void {
    let dir = path.slice(0, path.lastIndexOf("/"))
    while (dir.length > this.#root.length && !this.#seen.has(dir)) {
      this.#seen.add(dir)
      if (statSync(`${dir}/.git`, { throwIfNoEntry: false })) this.found.push(dir)
      dir = dir.slice(0, dir.lastIndexOf("/"))
    }
  }
}
