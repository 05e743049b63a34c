// The contract every search backend implements (ripgrep, the in-process fallback), and the shapes they
// return. Both backends give the same results on the same tree; the tests hold them to it.
import { type Stats, statSync } from "node:fs"

/** A file found by `files`, or holding matches of `grep`. */
export interface FileEntry {
  /** Absolute path. */
  readonly path: string
  /** Modification time, milliseconds since the epoch. */
  readonly mtimeMs: number
}

/** Options both operations share: which files are seen, and when to stop. */
export interface WalkOptions {
  /**
   * Include hidden files and directories (names starting with `.`). Default true. `.git` is never
   * searched either way.
   */
  readonly hidden?: boolean
  /** Follow symbolic links (ripgrep's `-L`). Default false: links are skipped, as ripgrep does. */
  readonly follow?: boolean
  /** Stops the search at once: the promise rejects with the signal's reason and no process is left. */
  readonly signal?: AbortSignal
  /**
   * Past this time the search stops and resolves with what it found, `timedOut: true`. 0 (or less) is up
   * before the search starts: nothing is searched.
   */
  readonly timeoutMs?: number
}

export interface FilesOptions extends WalkOptions {
  /**
   * Globs (picomatch syntax, matched against the path relative to the root; a glob without `/` matches
   * the file name at any depth). A file matching any of them is listed. Empty or absent: every file.
   */
  readonly pattern?: readonly string[]
  /** Keep only the newest `limit` files. Default: all. `total` still counts every match. */
  readonly limit?: number
}

export interface FilesResult {
  /** Newest first (ties by path), at most `limit`. */
  readonly files: FileEntry[]
  /** Every file that matched, kept or not (what was found before a timeout, when timed out). */
  readonly total: number
  readonly timedOut: boolean
}

/** `content`: the matching lines; `files`: the files with a match; `count`: matching lines per file. */
export type GrepMode = "content" | "files" | "count"

export interface GrepOptions extends WalkOptions {
  /** A regular expression in ripgrep's syntax (Rust `regex`), or a literal with `fixedStrings`. */
  readonly pattern: string
  readonly fixedStrings?: boolean
  readonly ignoreCase?: boolean
  /** Only files matching one of these globs (same rules as `FilesOptions.pattern`). */
  readonly include?: readonly string[]
  /** Context lines before and after each kept match (content mode). */
  readonly before?: number
  readonly after?: number
  /** Default `content`. */
  readonly mode?: GrepMode
  /** At most this many matching lines per file are counted (ripgrep's `--max-count`). */
  readonly maxCount?: number
  /**
   * Content mode: keep only the first `limit` matching lines (newest files first, lines in order).
   * Files and count modes: keep only the newest `limit` files. Totals still count everything.
   */
  readonly limit?: number
}

/** One line of output: a match, or a context line around one. */
export interface GrepLine {
  /** 1-based. */
  readonly line: number
  /** The line without its line ending. */
  readonly text: string
  readonly match: boolean
}

export interface GrepFile extends FileEntry {
  /** Matching lines in this file (all of them, also those not kept). */
  readonly count: number
  /** Content mode: the kept matching lines of this file with their context, in line order. */
  readonly lines?: GrepLine[]
}

export interface GrepResult {
  /**
   * Newest first (ties by path). Content mode: the files holding the kept lines; the other modes: at
   * most `limit` files.
   */
  readonly files: GrepFile[]
  /** Matching lines in every file searched. */
  readonly totalMatches: number
  /** Files with at least one matching line. */
  readonly totalFiles: number
  readonly timedOut: boolean
}

/** A search backend. `root` is an absolute directory; for `grep` it may also be a single file. */
export interface SearchBackend {
  readonly name: "ripgrep" | "fallback"
  files(root: string, options?: FilesOptions): Promise<FilesResult>
  grep(root: string, options: GrepOptions): Promise<GrepResult>
}

/** The pattern is not a valid regular expression (or uses a construct that is not supported). */
export class SearchPatternError extends Error {
  override readonly name = "SearchPatternError"
  /** What is wrong, e.g. `unclosed group`. */
  readonly problem: string
  readonly pattern: string

  constructor(pattern: string, problem: string) {
    super(`Invalid regex ${JSON.stringify(pattern)}: ${problem}.`)
    this.problem = problem
    this.pattern = pattern
  }
}

/** The search could not run (ripgrep failed, the root is missing, ...). */
export class SearchError extends Error {
  override readonly name = "SearchError"
}

/** `root`'s stats when it is a directory or a regular file to search; otherwise a SearchError saying what to give. */
export function statRoot(root: string): Stats {
  const stats = statSync(root, { throwIfNoEntry: false })
  if (!stats) throw new SearchError(`Cannot search ${root}: it does not exist. Check the path.`)
  if (!stats.isDirectory() && !stats.isFile())
    throw new SearchError(
      `Cannot search ${root}: it is not a regular file or a directory. Give a file or a directory.`,
    )
  return stats
}

export const DEFAULT_TIMEOUT_MS = 30_000
