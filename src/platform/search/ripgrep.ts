// The ripgrep backend: `rg --files` lists, `rg --count` finds the files with matches, `rg --json` reads the
// lines of the few files shown (`ripgrep-lines.ts`). Each rg runs through `ripgrep-process.ts` (killed on
// abort and on timeout, never left behind); its command line comes from `ripgrep-arguments.ts`.
import { closeSync, openSync, readSync } from "node:fs"
import { availableParallelism } from "node:os"
import {
  type FilesOptions,
  type FilesResult,
  type GrepOptions,
  type GrepResult,
  type SearchBackend,
  SearchError,
  SearchPatternError,
  statRoot,
} from "./backend.ts"
import { type GlobTest, globMatcher } from "./glob.ts"
import { type Hit, planContent } from "./results.ts"
import { BASE, matchFlags, narrowing, walkFlags } from "./ripgrep-arguments.ts"
import { failure, noFiles, patternProblem } from "./ripgrep-errors.ts"
import { readLines } from "./ripgrep-lines.ts"
import { type RipgrepRun, runRipgrep, splitter } from "./ripgrep-process.ts"
import { StatBatches } from "./stat-batches.ts"

export class RipgrepBackend implements SearchBackend {
  readonly name = "ripgrep" as const
  /** The rg executable. */
  readonly binary: string
  readonly #threads: number

  /** `threads`: worker threads that stat what rg lists (default: the CPU count, at most 8). */
  constructor(binary: string, options: { threads?: number } = {}) {
    this.binary = binary
    this.#threads = options.threads ?? Math.min(availableParallelism(), 8)
  }

  /**
   * Lists files:
   * 1. `rg --files`; name-only globs become a rg file type (`narrowing`), so rg skips the other files
   *    itself. A type (unlike `--glob`, an override) is applied after rg's ignore rules, so nothing they
   *    skip is listed, whichever ignore files rg reads (a symbolic link it would not list among them).
   * 2. Each path is tested by the globs in JavaScript (which decide), and the kept ones are stat'ed on the
   *    worker threads while rg runs (mtime, newest first).
   */
  async files(root: string, options: FilesOptions = {}): Promise<FilesResult> {
    const test = globMatcher(options.pattern)
    const args = [
      ...BASE,
      "--files",
      "--null",
      ...walkFlags(options),
      ...narrowing(options.pattern, options),
      "--",
      ".",
    ]
    const batches = new StatBatches(this.#threads, options.limit ?? Infinity)
    let run: RipgrepRun
    try {
      run = await runRipgrep({
        binary: this.binary,
        args,
        cwd: root,
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        onData: splitter(0, (record) => {
          const rel = record.startsWith("./") ? record.slice(2) : record
          if (!test || testPath(test, rel)) batches.add(under(root, rel))
        }),
      })
    } catch (error) {
      batches.release()
      throw error
    }
    const { top, total } = await batches.done()
    if (run.code === 2 && !run.timedOut && !noFiles(run.stderr)) throw new SearchError(failure(run.stderr))
    return { files: top, total, timedOut: run.timedOut }
  }

  /**
   * Searches in two passes, so the work never depends on how many lines match:
   * 1. `rg --count` lists the files with matches and how many lines match (a file with a NUL byte is
   *    binary and skipped, as ripgrep skips it); each is stat'ed; newest first.
   * 2. Content mode: `rg --json` (with context) on the files that hold the first `limit` matches, trimmed
   *    to exactly those matches and their context.
   * A single file given as root is searched alone (and skipped when it is binary, like any other).
   */
  async grep(root: string, options: GrepOptions): Promise<GrepResult> {
    const stats = statRoot(root)
    const single = stats.isFile()
    const test = single ? undefined : globMatcher(options.include)
    const matching = matchFlags(options)
    const maxCount = options.maxCount ?? Infinity
    const args = [
      ...BASE,
      "--count",
      "--with-filename",
      "--null",
      ...matching,
      ...(Number.isFinite(maxCount) ? ["--max-count", String(maxCount)] : []),
      ...walkFlags(options),
      ...(single ? [] : narrowing(options.include, options)),
      "--regexp",
      options.pattern,
      "--",
      single ? root : ".",
    ]
    const limit = options.limit ?? Infinity
    const counts = new Map<string, number>()
    let totalMatches = 0
    const batches = new StatBatches(single ? 0 : this.#threads, limit)
    let run: RipgrepRun
    try {
      run = await runRipgrep({
        binary: this.binary,
        args,
        cwd: single ? undefined : root,
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        onData: splitter(10, (record) => {
          const nul = record.lastIndexOf("\0")
          if (nul < 0) return
          const printed = record.slice(0, nul)
          const rel = printed.startsWith("./") ? printed.slice(2) : printed
          if (test && !testPath(test, rel)) return
          const path = single ? root : under(root, rel)
          if (single && hasNul(path)) return
          const count = Number(record.slice(nul + 1))
          counts.set(path, count)
          totalMatches += count
          batches.add(path)
        }),
      })
    } catch (error) {
      batches.release()
      throw error
    }
    const stamped = await batches.done()
    const top: Hit[] = stamped.top.map((file) => ({ ...file, count: counts.get(file.path)! }))
    if (run.code === 2 && !run.timedOut) {
      const problem = patternProblem(run.stderr)
      if (problem) throw new SearchPatternError(options.pattern, problem)
      if (!noFiles(run.stderr) && stamped.total === 0) throw new SearchError(failure(run.stderr))
    }
    if ((options.mode ?? "content") !== "content") {
      return { files: top, totalMatches, totalFiles: stamped.total, timedOut: run.timedOut }
    }
    const read = await readLines({
      binary: this.binary,
      plan: planContent(top, limit, maxCount),
      matchFlags: matching,
      options,
    })
    return {
      files: read.files,
      totalMatches,
      totalFiles: stamped.total,
      timedOut: run.timedOut || read.timedOut,
    }
  }
}

/** `rel` (as rg prints it, relative to the root) as an absolute path. */
function under(root: string, rel: string): string {
  return root.endsWith("/") ? root + rel : `${root}/${rel}`
}

function testPath(test: GlobTest, rel: string): boolean {
  const slash = rel.lastIndexOf("/")
  return slash < 0 ? test("", rel) : test(rel.slice(0, slash), rel.slice(slash + 1))
}

/** Whether a file holds a NUL byte (read in chunks). */
function hasNul(path: string): boolean {
  let fd: number
  try {
    fd = openSync(path, "r")
  } catch {
    return false
  }
  try {
    const buffer = Buffer.allocUnsafe(1 << 20)
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null)
      if (n === 0) return false
      if (buffer.subarray(0, n).indexOf(0) >= 0) return true
    }
  } finally {
    closeSync(fd)
  }
}
