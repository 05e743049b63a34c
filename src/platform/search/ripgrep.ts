// The ripgrep backend: `rg --files` lists, `rg --count` finds the files with matches, `rg --json` reads the
// lines of the few files shown. The process is killed on abort and on timeout (what it printed by then is
// kept), and never left behind.
import { spawn } from "node:child_process"
import { closeSync, openSync, readSync, statSync } from "node:fs"
import { availableParallelism } from "node:os"
import {
  DEFAULT_TIMEOUT_MS,
  type FilesOptions,
  type FilesResult,
  type GrepFile,
  type GrepLine,
  type GrepOptions,
  type GrepResult,
  type SearchBackend,
  SearchError,
  SearchPatternError,
} from "./backend.ts"
import { type GlobTest, globMatcher, nameGlob } from "./glob.ts"
import { type Hit, planContent, trimLines } from "./results.ts"
import { StatBatches } from "./stat-batches.ts"

/** Flags every run gets: no config file, hidden files, never `.git`, no global gitignore, no noise. */
const BASE = ["--no-config", "--no-ignore-global", "--no-messages", "--no-ignore-messages", "--glob", "!.git"]
/** Files per `rg --json` run when reading lines (keeps the command line short). */
const BATCH = 200
/** Reading the lines of the files shown gets at least this long, even after a timeout. */
const LINES_MS = 5_000
/** How long a killed rg may take to exit before the call returns anyway. */
const KILL_WAIT_MS = 1_000

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
    let run: RunResult
    try {
      run = await this.#run(
        args,
        root,
        options,
        splitter(0, (record) => {
          const rel = record.startsWith("./") ? record.slice(2) : record
          if (!test || testPath(test, rel)) batches.add(under(root, rel))
        }),
      )
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
    const stats = statSync(root, { throwIfNoEntry: false })
    if (!stats) throw new SearchError(`No such file or directory: ${root}`)
    if (!stats.isDirectory() && !stats.isFile())
      throw new SearchError(`Not a regular file or a directory: ${root}`)
    const single = stats.isFile()
    const test = single ? undefined : globMatcher(options.include)
    const matchFlags = [
      ...(options.ignoreCase ? ["--ignore-case"] : ["--case-sensitive"]),
      ...(options.fixedStrings ? ["--fixed-strings"] : []),
    ]
    const maxCount = options.maxCount ?? Infinity
    const args = [
      ...BASE,
      "--count",
      "--with-filename",
      "--null",
      ...matchFlags,
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
    let run: RunResult
    try {
      run = await this.#run(
        args,
        single ? undefined : root,
        options,
        splitter(10, (record) => {
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
      )
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
    const read = await this.#lines(planContent(top, limit, maxCount), matchFlags, options)
    return {
      files: read.files,
      totalMatches,
      totalFiles: stamped.total,
      timedOut: run.timedOut || read.timedOut,
    }
  }

  /**
   * Reads the lines (and context) of the planned files with `rg --json`, batch by batch; `--max-count`
   * stops rg after the lines needed (it still prints the context after the last one).
   */
  async #lines(
    plan: { hit: Hit; quota: number }[],
    matchFlags: string[],
    options: GrepOptions,
  ): Promise<{ files: GrepFile[]; timedOut: boolean }> {
    const before = options.before ?? 0
    const after = options.after ?? 0
    const byPath = new Map<string, GrepLine[]>()
    let timedOut = false
    for (let start = 0; start < plan.length; start += BATCH) {
      const batch = plan.slice(start, start + BATCH)
      const args = [
        "--no-config",
        "--json",
        "--max-count",
        String(Math.max(...batch.map(({ quota }) => quota))),
        ...matchFlags,
        ...(before ? ["--before-context", String(before)] : []),
        ...(after ? ["--after-context", String(after)] : []),
        "--regexp",
        options.pattern,
        "--",
        ...batch.map(({ hit }) => hit.path),
      ]
      const timeoutMs = Math.max(LINES_MS, options.timeoutMs ?? DEFAULT_TIMEOUT_MS)
      const run = await this.#run(
        args,
        undefined,
        { ...options, timeoutMs },
        splitter(10, (record) => {
          if (!record.startsWith('{"type":"match"') && !record.startsWith('{"type":"context"')) return
          const message = JSON.parse(record) as RgLineMessage
          const path = textOf(message.data.path)
          let list = byPath.get(path)
          if (!list) {
            list = []
            byPath.set(path, list)
          }
          list.push({
            line: message.data.line_number,
            text: textOf(message.data.lines)
              .replace(/\r?\n$/, "")
              .replace(/\r$/, ""),
            match: message.type === "match",
          })
        }),
      )
      timedOut ||= run.timedOut
    }
    const files: GrepFile[] = []
    for (const { hit, quota } of plan) {
      const lines = byPath.get(hit.path)
      if (!lines) continue
      lines.sort((a, b) => a.line - b.line)
      files.push({ ...hit, lines: trimLines(lines, quota, before, after) })
    }
    return { files, timedOut }
  }

  /**
   * Runs rg (the configured binary) in `cwd`, handing stdout chunks to `onData`. Resolves with the exit code and stderr; on timeout rg is
   * killed and the result says so; on abort it is killed and the promise rejects with the reason.
   */
  #run(
    args: string[],
    cwd: string | undefined,
    options: { signal?: AbortSignal; timeoutMs?: number },
    onData: (chunk: Buffer, end: boolean) => void,
  ): Promise<RunResult> {
    const { signal } = options
    signal?.throwIfAborted()
    // A time limit of zero has run out before rg starts: nothing is searched (the fallback does the same).
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    if (timeoutMs <= 0) return Promise.resolve({ code: null, stderr: "", timedOut: true })
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, args, {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
        env: { ...process.env, RIPGREP_CONFIG_PATH: "" },
      })
      let stderr = ""
      let timedOut = false
      let aborted = false
      let failed: Error | undefined
      const kill = () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      }
      const timer = setTimeout(() => {
        timedOut = true
        kill()
      }, timeoutMs)
      const onAbort = () => {
        aborted = true
        kill()
        // Give rg a moment to be gone, so no process outlives the call.
        setTimeout(() => done(), KILL_WAIT_MS).unref()
      }
      signal?.addEventListener("abort", onAbort, { once: true })
      child.stdout.on("data", (chunk: Buffer) => {
        if (aborted || failed) return
        try {
          onData(chunk, false)
        } catch (error) {
          failed = error as Error
          kill()
        }
      })
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => {
        if (stderr.length < 64 * 1024) stderr += chunk
      })
      let settled = false
      const done = (code: number | null = child.exitCode) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        signal?.removeEventListener("abort", onAbort)
        if (aborted) return reject(signal!.reason)
        if (failed) return reject(failed)
        if (!timedOut) onData(Buffer.alloc(0), true)
        resolve({ code, stderr, timedOut })
      }
      child.on("error", (error: NodeJS.ErrnoException) => {
        failed = new SearchError(
          error.code === "ENOENT"
            ? `ripgrep not found at ${this.binary}`
            : `ripgrep failed to start: ${error.message}`,
        )
        done()
      })
      child.on("close", (code) => done(code))
    })
  }
}

interface RunResult {
  readonly code: number | null
  readonly stderr: string
  readonly timedOut: boolean
}

interface RgText {
  readonly text?: string
  readonly bytes?: string
}

interface RgLineMessage {
  readonly type: "match" | "context"
  readonly data: { readonly path: RgText; readonly lines: RgText; readonly line_number: number }
}

/** `rel` (as rg prints it, relative to the root) as an absolute path. */
function under(root: string, rel: string): string {
  return root.endsWith("/") ? root + rel : `${root}/${rel}`
}

function testPath(test: GlobTest, rel: string): boolean {
  const slash = rel.lastIndexOf("/")
  return slash < 0 ? test("", rel) : test(rel.slice(0, slash), rel.slice(slash + 1))
}

/** ripgrep's JSON text: UTF-8 as `text`, anything else as base64 `bytes` (decoded with replacement). */
function textOf(value: RgText): string {
  return value.text ?? Buffer.from(value.bytes ?? "", "base64").toString("utf8")
}

/** Splits a byte stream into records ending at `separator`, as whole UTF-8 strings. */
function splitter(
  separator: number,
  onRecord: (record: string) => void,
): (chunk: Buffer, end: boolean) => void {
  let rest: Buffer | undefined
  return (chunk, end) => {
    let data = rest ? Buffer.concat([rest, chunk]) : chunk
    let start = 0
    for (;;) {
      const at = data.indexOf(separator, start)
      if (at < 0) break
      onRecord(data.toString("utf8", start, at))
      start = at + 1
    }
    data = data.subarray(start)
    rest = data.length ? Buffer.from(data) : undefined
    if (end && rest) {
      onRecord(rest.toString("utf8"))
      rest = undefined
    }
  }
}

function walkFlags(options: { hidden?: boolean; follow?: boolean }): string[] {
  return [...((options.hidden ?? true) ? ["--hidden"] : []), ...(options.follow ? ["--follow"] : [])]
}

/**
 * `typeFilter`, when hidden files are listed anyway. rg skips its hidden check for a file a type matches
 * (as for one a `!` ignore rule matches), so without `--hidden` a type would list `.env.c` for `*.c`; rg
 * then lists every file it would list plainly, and the JavaScript filter alone decides.
 */
function narrowing(globs: readonly string[] | undefined, options: { hidden?: boolean }): string[] {
  return (options.hidden ?? true) ? typeFilter(globs) : []
}

/**
 * When every glob only looks at file names, a ripgrep file type built from them: ripgrep then skips the
 * other files itself (after its ignore rules, unlike `--glob`). Globs that look at more than the name, or
 * that rg's type syntax might read differently, give nothing (rg lists every file). What rg lists is only
 * narrowed: the JavaScript filter still decides.
 */
export function typeFilter(globs: readonly string[] | undefined): string[] {
  if (!globs || globs.length === 0) return []
  const names: string[] = []
  for (const glob of globs) {
    const name = nameGlob(glob)
    if (name === undefined || /[:\\()+@!]/.test(name)) return []
    const expanded = expandBraces(name)
    if (!expanded) return []
    names.push(...expanded)
  }
  return [...names.flatMap((name) => ["--type-add", `toolbeltinclude:${name}`]), "--type", "toolbeltinclude"]
}

/** `a{b,c}d` → `abd`, `acd` (no nesting); undefined when the braces are not that simple. */
function expandBraces(glob: string): string[] | undefined {
  const open = glob.indexOf("{")
  if (open < 0) return glob.includes("}") || glob.includes(",") ? undefined : [glob]
  const close = glob.indexOf("}", open)
  if (close < 0 || glob.slice(open + 1, close).includes("{")) return undefined
  const rest = expandBraces(glob.slice(close + 1))
  if (!rest) return undefined
  const head = glob.slice(0, open)
  return glob
    .slice(open + 1, close)
    .split(",")
    .flatMap((option) => rest.map((tail) => head + option + tail))
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

/** ripgrep's regex error, as the problem (`unclosed group`), or undefined when it is another failure. */
function patternProblem(stderr: string): string | undefined {
  if (/is not allowed in a regex/.test(stderr))
    return 'the literal "\\n" is not allowed: grep matches one line at a time'
  if (!/regex parse error/.test(stderr)) return undefined
  const line = stderr.split("\n").find((text) => text.startsWith("error: "))
  return line ? line.slice("error: ".length).trim() : stderr.trim()
}

function noFiles(stderr: string): boolean {
  return /No files were searched/.test(stderr) || stderr.trim() === ""
}

function failure(stderr: string): string {
  return `ripgrep failed: ${stderr.trim().split("\n")[0] ?? "unknown error"}`
}
