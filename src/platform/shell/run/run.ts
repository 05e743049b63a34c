import { type ChildProcess, spawn } from "node:child_process"
import type { Readable } from "node:stream"
import type { Limits } from "../../text/limits.ts"
import { asSentence } from "../../text/sentence.ts"
import { Capture, type Captured } from "./capture.ts"
import { trackLive } from "./cleanup.ts"
import { detectPrompt } from "./prompt.ts"
import { containment, onReaperStatus, type ReapedExit, reaperArgv } from "./reaper.ts"
import type { ShellInfo } from "./shell.ts"
import { HAS_PROC, type KillReport, killTree, killTreeNow, type ProcessInfo, ProcessTree } from "./tree.ts"

export interface RunOptions {
  readonly command: string
  readonly cwd: string
  readonly shell: ShellInfo
  /** The complete environment (see `commandEnv`); must carry `marker` under RUN_MARKER. */
  readonly env: Readonly<Record<string, string>>
  /** The run marker value in `env`, by which escaped descendants are found. */
  readonly marker: string
  readonly limits: Limits
  /** The managed output store's directory. */
  readonly storeDir: string
  /** Kill the tree after this long; none when undefined (background jobs). */
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
  /** Silence after which a prompt-like last line stops the command; 0 or undefined: never. */
  readonly promptIdleMs?: number
  /** The live tail, at most every `progressIntervalMs` (default 100 ms). */
  readonly onProgress?: (tail: string) => void
  readonly progressIntervalMs?: number
  /** SIGTERM to SIGKILL (default 3 s). */
  readonly killGraceMs?: number
  /** Rewrites the argv (the sandbox wraps the shell in bwrap). */
  readonly wrap?: (argv: readonly string[]) => string[]
  /** Background job: all output logged to the store from the start; the process does not keep Node alive. */
  readonly background?: boolean
  /**
   * Run the shell under the child subreaper when this machine has one (default true; see reaper.ts).
   * A wrapped command (the sandbox) is contained by its PID namespace instead.
   */
  readonly reaper?: boolean
}

/** Why the command ended. */
export type EndReason = "exit" | "timeout" | "abort" | "prompt" | "killed"

export interface RunResult {
  readonly pid: number
  /** The shell's exit code; null when it was killed by a signal. */
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly reason: EndReason
  readonly output: Captured
  /** The prompt line that stopped it (reason "prompt"). */
  readonly prompt?: string
  /** Processes the command left running after its shell exited, killed so they do not outlive the call. */
  readonly leftovers: ProcessInfo[]
  /** Everything killed (by timeout, abort, prompt, kill, or as leftovers). */
  readonly killed: ProcessInfo[]
  /** Processes that would not die even after SIGKILL (normally none). */
  readonly survivors: ProcessInfo[]
  readonly durationMs: number
}

/** The command could not be started at all (the shell is missing, the directory vanished, ...). */
export class SpawnError extends Error {
  override readonly name = "SpawnError"
}

/** Node's spawn error (its code kept as the cause) with the program and what to check. */
function spawnError(file: string, cwd: string, error: Error): SpawnError {
  return new SpawnError(
    `Could not start ${file}: ${asSentence(error.message)} Check that ${file} exists and can be run, and that the working directory ${cwd} exists.`,
    { cause: error },
  )
}

const SCAN_MS = 200
const LOG_FLUSH_MS = 250
/** How long processes still alive when the shell exits may take to exit on their own. */
const EXITING_GRACE_MS = 60
/** The reaper exits as soon as its last child is gone; past this, it is told to kill whatever it still holds. */
const REAPER_EXIT_MS = 1000
/** After the tree is gone, output still in the pipe arrives at once; a pipe that stays silent this long is
 *  held by something outside the tree, and is not waited for. */
const DRAIN_IDLE_MS = 300

/**
 * A running command and its whole process tree.
 *
 * 1. Spawn the shell in its own session and process group, stdin closed, stderr joined to stdout by
 *    the shell itself (`exec 2>&1`) so both arrive in the order they were written. On Linux the shell
 *    runs under the child subreaper (reaper.ts), so no descendant can leave the tree, whatever it does
 *    to its session, group or environment; the reaper reports the shell's end on fd 3.
 * 2. Feed the output to a bounded capture, pausing the pipe when the spool is behind.
 * 3. Watch: the timeout, the abort signal, silence after a prompt, and a periodic scan that records
 *    descendants while their parents still link them to the tree.
 * 4. When the shell exits, kill whatever it left running; the run ends when the tree is gone and the
 *    pipe has drained, not when the pipe closes (a background child can hold it open forever).
 * 5. If this process exits (or is told to terminate) first, the tree is killed with it.
 */
export class RunningCommand {
  readonly pid: number
  readonly capture: Capture
  /** Settles when the tree is gone and the output is bounded; rejects only with a SpawnError. */
  readonly done: Promise<RunResult>
  readonly #child: ChildProcess
  readonly #tree: ProcessTree
  readonly #reaper: boolean
  readonly #options: RunOptions
  readonly #started = Date.now()
  #stopping: Promise<KillReport> | undefined
  #reason: EndReason = "exit"
  #prompt: string | undefined
  #exited = false
  #timers: NodeJS.Timeout[] = []
  #progressTimer: NodeJS.Timeout | undefined
  #lastProgress = 0
  #paused = false
  #onAbort: (() => void) | undefined

  constructor(options: RunOptions) {
    this.#options = options
    this.capture = new Capture({
      limits: options.limits,
      storeDir: options.storeDir,
      log: options.background ?? false,
    })
    const argv = [options.shell.path, "-c", `exec 2>&1; ${options.command}`]
    const contained = options.wrap || options.reaper === false ? undefined : containment()
    this.#reaper = contained?.kind === "subreaper"
    const launch = options.wrap
      ? options.wrap(argv)
      : contained?.kind === "subreaper"
        ? reaperArgv(contained.perl, argv)
        : argv
    const [file, ...args] = launch
    let child: ChildProcess
    try {
      child = spawn(file!, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: this.#reaper ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
      })
    } catch (error) {
      throw spawnError(file!, options.cwd, error as Error)
    }
    this.#child = child
    if (child.pid === undefined) {
      this.pid = -1
      this.#tree = new ProcessTree({ root: -1, marker: options.marker })
      this.done = new Promise((_, reject) => {
        child.once("error", (error) => reject(spawnError(file!, options.cwd, error)))
      })
      return
    }
    this.pid = child.pid
    this.#tree = new ProcessTree({ root: child.pid, marker: options.marker, reaper: this.#reaper })
    const untrack = trackLive(this)
    this.done = this.#run()
    this.done.then(untrack, untrack)
  }

  /** Whether the shell is still running. */
  get running(): boolean {
    return !this.#exited
  }

  /** Kills the whole tree (idempotent); resolves with what was killed. */
  stop(reason: Exclude<EndReason, "exit"> = "killed"): Promise<KillReport> {
    if (!this.#stopping) {
      this.#reason = reason
      this.#stopping = killTree(this.#tree, { graceMs: this.#options.killGraceMs ?? 3000 })
    }
    return this.#stopping
  }

  /** SIGKILLs the tree synchronously (process exit). */
  stopNow(): void {
    if (this.pid > 0) killTreeNow(this.#tree)
  }

  async #run(): Promise<RunResult> {
    const options = this.#options
    const child = this.#child
    const streams = [child.stdout!, child.stderr!]
    const rootExited = new Promise<ReapedExit>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }))
    })
    // The shell's end: the reaper's status line, or the root's own exit (no reaper, or it failed).
    const exited = new Promise<ReapedExit>((resolve) => {
      onReaperStatus(child, resolve, { unref: options.background })
      void rootExited.then(resolve)
    }).then((exit) => {
      this.#exited = true
      return exit
    })
    const resume = () => {
      this.#paused = false
      for (const stream of streams) stream.resume()
    }
    for (const stream of streams) {
      stream.on("data", (chunk: Buffer) => {
        if (!this.capture.push(chunk) && !this.#paused) {
          this.#paused = true
          for (const each of streams) each.pause()
          this.capture.onDrain(resume)
        }
        this.#scheduleProgress()
      })
      stream.on("error", () => {})
    }
    this.#watch()
    if (options.background) {
      child.unref()
      for (const stream of streams) (stream as Readable & { unref?: () => void }).unref?.()
    }

    const exit = await exited
    let leftovers: ProcessInfo[] = []
    if (!this.#stopping) {
      leftovers = await this.#survivors()
      if (leftovers.length) {
        this.#stopping = killTree(this.#tree, { graceMs: options.killGraceMs ?? 3000 })
      }
    }
    const report = this.#stopping ? await this.#stopping : { killed: [], survivors: [] }
    if (this.#reaper) await this.#reaperGone(rootExited)
    this.#clearTimers()
    if (this.#onAbort) options.signal?.removeEventListener("abort", this.#onAbort)
    await drain(streams, { bytes: () => this.capture.bytes, paused: () => this.#paused })
    for (const stream of streams) stream.destroy()
    ;(child.stdio[3] as Readable | null | undefined)?.destroy()
    const output = await this.capture.finish()
    return {
      pid: this.pid,
      exitCode: exit.code,
      signal: exit.signal,
      reason: this.#reason,
      output,
      ...(this.#prompt !== undefined ? { prompt: this.#prompt } : {}),
      leftovers,
      killed: report.killed,
      survivors: report.survivors,
      durationMs: Date.now() - this.#started,
    }
  }

  /**
   * What is still running once the shell has exited. A process already on its way out (a sandbox's
   * inner init, a pipeline stage finishing) is given a moment, so only real leftovers are reported.
   */
  async #survivors(): Promise<ProcessInfo[]> {
    const until = Date.now() + EXITING_GRACE_MS
    for (;;) {
      this.#tree.scan()
      const alive = this.#tree.alive()
      if (alive.length === 0 || Date.now() >= until) return alive
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /**
   * Waits for the reaper to exit, which it does once its last child is gone. A process forked after the
   * last scan keeps it alive: then it is told to kill everything it holds (SIGUSR1), and waited for again.
   */
  async #reaperGone(exited: Promise<unknown>): Promise<void> {
    const within = (ms: number) =>
      Promise.race([
        exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(resolve, ms, false)),
      ])
    if (await within(REAPER_EXIT_MS)) return
    try {
      process.kill(this.pid, "SIGUSR1")
    } catch {
      return
    }
    await within(REAPER_EXIT_MS)
  }

  #watch(): void {
    const options = this.#options
    const unref = options.background ?? false
    const every = (ms: number, run: () => void) => {
      const timer = setInterval(run, ms)
      if (unref) timer.unref()
      this.#timers.push(timer)
    }
    if (options.timeoutMs !== undefined) {
      const timer = setTimeout(() => void this.stop("timeout"), options.timeoutMs)
      if (unref) timer.unref()
      this.#timers.push(timer)
    }
    if (options.signal) {
      this.#onAbort = () => void this.stop("abort")
      if (options.signal.aborted) this.#onAbort()
      else options.signal.addEventListener("abort", this.#onAbort, { once: true })
    }
    if (HAS_PROC) every(SCAN_MS, () => this.#tree.scan())
    // A job's log is read by others while it runs: keep the file close behind the output.
    if (options.background) every(LOG_FLUSH_MS, () => void this.capture.flush())
    const idle = options.promptIdleMs ?? 0
    if (idle > 0) {
      let checked = 0
      every(Math.max(20, Math.min(250, Math.floor(idle / 4))), () => {
        const last = this.capture.lastOutputAt
        if (this.#stopping || last === 0 || last === checked || Date.now() - last < idle) return
        checked = last
        const prompt = detectPrompt(this.capture.tail(2000))
        if (prompt === undefined) return
        this.#prompt = prompt
        void this.stop("prompt")
      })
    }
  }

  #scheduleProgress(): void {
    const onProgress = this.#options.onProgress
    if (!onProgress || this.#progressTimer) return
    const interval = this.#options.progressIntervalMs ?? 100
    const emit = () => {
      this.#progressTimer = undefined
      this.#lastProgress = Date.now()
      onProgress(this.capture.tail())
    }
    const wait = this.#lastProgress + interval - Date.now()
    if (wait <= 0) emit()
    else this.#progressTimer = setTimeout(emit, wait)
  }

  #clearTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers = []
    if (this.#progressTimer) {
      clearTimeout(this.#progressTimer)
      this.#progressTimer = undefined
      this.#options.onProgress?.(this.capture.tail())
    }
  }
}

/** Starts `options.command` and resolves when its tree is gone (see RunningCommand). */
export function runCommand(options: RunOptions): Promise<RunResult> {
  return new RunningCommand(options).done
}

/**
 * Waits for both pipes to end. The tree is gone by now, so whatever is still buffered arrives at once;
 * a pipe that stays silent for DRAIN_IDLE_MS is held by a process outside the tree and is given up on.
 */
async function drain(
  streams: readonly Readable[],
  state: { bytes: () => number; paused: () => boolean },
): Promise<void> {
  const ended = Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (stream.readableEnded || stream.destroyed) resolve()
          else {
            stream.once("end", resolve)
            stream.once("close", resolve)
          }
        }),
    ),
  )
  let settled = false
  void ended.then(() => {
    settled = true
  })
  let last = state.bytes()
  while (!settled) {
    let timer: NodeJS.Timeout | undefined
    const idle = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DRAIN_IDLE_MS)
    })
    await Promise.race([ended, idle])
    clearTimeout(timer)
    if (settled) return
    const now = state.bytes()
    if (now === last && !state.paused()) return
    last = now
  }
}
