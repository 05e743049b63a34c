// One rg process: spawned with no config file, its stdout handed on in records, killed on abort and on
// timeout (what it printed by then is kept), and never left behind.
import { spawn } from "node:child_process"
import { asSentence } from "../text/sentence.ts"
import { DEFAULT_TIMEOUT_MS, SearchError } from "./backend.ts"

/** How long a killed rg may take to exit before the call returns anyway. */
const KILL_WAIT_MS = 1_000

export interface RipgrepRun {
  readonly code: number | null
  readonly stderr: string
  readonly timedOut: boolean
}

export interface RunRipgrepOptions {
  /** The rg executable. */
  readonly binary: string
  readonly args: readonly string[]
  /** Where rg runs (undefined: this process's directory; the paths in `args` are absolute then). */
  readonly cwd?: string
  readonly signal?: AbortSignal
  readonly timeoutMs?: number
  /** Each stdout chunk, then (unless rg timed out) an empty one with `end` set. */
  readonly onData: (chunk: Buffer, end: boolean) => void
}

/**
 * Runs rg, handing stdout chunks to `onData`. Resolves with the exit code and stderr; on timeout rg is
 * killed and the result says so; on abort it is killed and the promise rejects with the reason; when
 * `onData` throws, rg is killed and the promise rejects with that error.
 */
export function runRipgrep(options: RunRipgrepOptions): Promise<RipgrepRun> {
  const { binary, signal, onData } = options
  signal?.throwIfAborted()
  // A time limit of zero has run out before rg starts: nothing is searched (the fallback does the same).
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (timeoutMs <= 0) return Promise.resolve({ code: null, stderr: "", timedOut: true })
  return new Promise((resolve, reject) => {
    const child = spawn(binary, options.args, {
      cwd: options.cwd,
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
          ? `ripgrep not found at ${binary}. Install ripgrep, or set TOOLBELT_RIPGREP_PATH to it.`
          : `ripgrep failed to start: ${asSentence(error.message)} Install ripgrep, or set TOOLBELT_RIPGREP_PATH to it.`,
      )
      done()
    })
    child.on("close", (code) => done(code))
  })
}

/** Splits a byte stream into records ending at `separator`, as whole UTF-8 strings. */
export function splitter(
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
