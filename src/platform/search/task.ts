// What one thread of the fallback does for a search: walk the directories it is given and, for each
// file that is not ignored, either stat it (files) or search it (grep). Used by the worker threads and,
// without workers, by the main thread.
import { statSync } from "node:fs"
import { globMatcher } from "./glob.ts"
import type { CompiledPattern } from "./regex.ts"
import { TopHits } from "./results.ts"
import { CHUNK, FileSearcher } from "./scan-file.ts"
import { Kernel } from "./simd.ts"
import { type DirTask, type OnFile, Walker } from "./walk.ts"

/** A search as a thread sees it (plain data: it crosses to workers). */
export interface TaskSpec {
  readonly root: string
  readonly hidden: boolean
  readonly follow: boolean
  readonly kind: "files" | "grep"
  /** Files: the globs to list; grep: the include globs. */
  readonly globs?: readonly string[]
  readonly pattern?: CompiledPattern
  readonly maxCount?: number
  /** `root` is a file (grep): search it alone. */
  readonly single?: boolean
  /** Keep only the newest `limit` files (the counts still cover all). Default: all. */
  readonly limit?: number
}

/**
 * What one thread found, as parallel arrays (cheap to post between threads): the files it keeps (paths
 * relative to the root), and how many files and matching lines it found in all.
 */
export interface Found {
  readonly paths: string[]
  readonly mtimes: number[]
  readonly counts: number[]
  readonly files: number
  readonly matches: number
  /** The files replace those the thread sent before (its current newest); else they add to them. */
  readonly snapshot: boolean
}

let kernel: Kernel | undefined

export class SearchTask {
  readonly #top: TopHits
  #unsent = 0
  readonly #walker: Walker
  readonly #single: (() => void) | undefined

  /** `stopped` is asked between files (and chunks of a big file): true ends the work early. */
  constructor(spec: TaskSpec, stopped: () => boolean = () => false) {
    const test = globMatcher(spec.globs)
    const top = new TopHits(spec.limit ?? Infinity)
    this.#top = top
    const found = (path: string, mtimeMs: number, count: number) => {
      top.add({ path, mtimeMs, count })
      this.#unsent++
    }
    let onFile: OnFile
    if (spec.kind === "files") {
      onFile = (dir, name, absDir) => {
        if (test && !test(dir, name)) return
        const stats = statSync(`${absDir}/${name}`, { throwIfNoEntry: false })
        if (stats) found(dir === "" ? name : `${dir}/${name}`, stats.mtimeMs, 0)
      }
    } else {
      kernel ??= new Kernel(CHUNK)
      const searcher = new FileSearcher(spec.pattern!, kernel)
      const maxCount = spec.maxCount ?? Infinity
      onFile = (dir, name, absDir) => {
        if (test && !test(dir, name)) return
        const result = searcher.count(`${absDir}/${name}`, maxCount, stopped)
        if (result) found(dir === "" ? name : `${dir}/${name}`, result.mtimeMs, result.count)
      }
    }
    this.#walker = new Walker({ root: spec.root, hidden: spec.hidden, follow: spec.follow, stopped }, onFile)
    if (spec.single) {
      // The root is the file: its path in the results is "" (the caller knows the root).
      const slash = spec.root.lastIndexOf("/")
      const [absDir, name] = [spec.root.slice(0, slash), spec.root.slice(slash + 1)]
      this.#single = () => onFile("", name, absDir)
    }
  }

  /** Lists one directory (its files are handled at once); returns its subdirectories. */
  walk(dir: DirTask): DirTask[] {
    if (this.#single) {
      this.#single()
      return []
    }
    return this.#walker.walk(dir)
  }

  /** Files found since the last `take`. */
  get unsent(): number {
    return this.#unsent
  }

  /** What to send: the current newest (limited), or what was found since the last call. */
  take(): Found {
    const top = this.#top
    const snapshot = top.limit !== Infinity
    const items = snapshot ? top.items : top.drain()
    this.#unsent = 0
    return {
      paths: items.map((item) => item.path),
      mtimes: items.map((item) => item.mtimeMs),
      counts: items.map((item) => item.count),
      files: top.files,
      matches: top.matches,
      snapshot,
    }
  }
}
