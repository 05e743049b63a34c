import type { Limits } from "../../text/limits.ts"
import { randomBytes } from "../../util/random.ts"
import { RunningCommand, type RunOptions, type RunResult } from "../run/run.ts"
import type { KillReport } from "../run/tree.ts"
import { type Region, readRegion } from "./read.ts"

export type JobStatus = "running" | "exited" | "killed"

/** At most this many jobs run at once in one session: a model starting servers in a loop must stop. */
export const MAX_RUNNING_PER_SESSION = 16
/** Finished jobs kept per session so their last output can still be read. */
const MAX_FINISHED_PER_SESSION = 32

export class JobError extends Error {
  override readonly name = "JobError"
}

/** New output of a job since the last read, with its state. */
export interface JobRead {
  readonly job: Job
  readonly output: Region
  readonly status: JobStatus
}

/**
 * A command started with `run_in_background`: its process tree, its log in the output store (written as
 * the output arrives, so it survives any volume), and how far the model has read it.
 */
export class Job {
  readonly id: string
  readonly sessionID: string
  readonly command: string
  readonly description: string | undefined
  readonly cwd: string
  readonly startedAt = Date.now()
  readonly process: RunningCommand
  #result: RunResult | undefined
  #endedAt: number | undefined
  #killedBy: string | undefined
  #offset = 0
  #line = 1
  #reading: Promise<unknown> = Promise.resolve()

  constructor(options: { id: string; sessionID: string; description?: string; run: RunOptions }) {
    this.id = options.id
    this.sessionID = options.sessionID
    this.command = options.run.command
    this.description = options.description
    this.cwd = options.run.cwd
    this.process = new RunningCommand({ ...options.run, background: true })
    this.process.done.then(
      (result) => {
        this.#result = result
        this.#endedAt = Date.now()
      },
      () => {
        this.#endedAt = Date.now()
      },
    )
  }

  get pid(): number {
    return this.process.pid
  }

  get status(): JobStatus {
    if (this.#endedAt === undefined) return "running"
    return this.#killedBy !== undefined || (this.#result && this.#result.reason !== "exit")
      ? "killed"
      : "exited"
  }

  get result(): RunResult | undefined {
    return this.#result
  }

  get killedBy(): string | undefined {
    return this.#killedBy
  }

  /** The log file with everything the job printed (undefined if it could not be created). */
  get logPath(): string | undefined {
    return this.process.capture.path
  }

  /** A one-line state: `running for 12 s (pid 1234)`, `exited with code 1 after 3.2 s`, `killed by bash_kill`. */
  describeStatus(now: number = Date.now()): string {
    const ran = seconds((this.#endedAt ?? now) - this.startedAt)
    const status = this.status
    if (status === "running") return `running for ${ran} (pid ${this.pid})`
    const result = this.#result
    if (status === "killed") return `killed${this.#killedBy ? ` by ${this.#killedBy}` : ""} after ${ran}`
    if (result?.signal) return `ended by signal ${result.signal} after ${ran}`
    return `exited with code ${result?.exitCode ?? "unknown"} after ${ran}`
  }

  /**
   * The output printed since the last read, bounded like a command's output, and the state. Reads are
   * serialised, so two calls never return the same output twice.
   */
  readNew(limits: Limits): Promise<JobRead> {
    const next = this.#reading.then(() => this.#read(limits))
    this.#reading = next.catch(() => {})
    return next
  }

  async #read(limits: Limits): Promise<JobRead> {
    const status = this.status
    await this.process.capture.flush()
    const path = this.logPath
    const end = this.process.capture.bytes
    let output: Region
    if (path === undefined) {
      const text = this.process.capture.tail(limits.maxBytes)
      output = {
        text,
        truncated: false,
        totalLines: 0,
        keptLines: 0,
        totalBytes: text.length,
        signals: [],
        newlines: 0,
        saveError: "the job's log could not be created",
      }
    } else {
      output = await readRegion({ path, start: this.#offset, end, firstLine: this.#line, limits })
      this.#offset = end
      this.#line += output.newlines
    }
    return { job: this, output, status }
  }

  /** Kills the job's whole tree; resolves with what was killed, once the job has ended. */
  async kill(by: string): Promise<KillReport> {
    if (this.status === "running") this.#killedBy ??= by
    const report = await this.process.stop("killed")
    await this.process.done.catch(() => {})
    return report
  }
}

/** The background jobs of this process, by session. */
export class JobRegistry {
  readonly #jobs = new Map<string, Job>()

  start(options: { sessionID: string; description?: string; run: RunOptions }): Job {
    const running = this.list(options.sessionID).filter((job) => job.status === "running")
    if (running.length >= MAX_RUNNING_PER_SESSION) {
      throw new JobError(
        `This session already has ${running.length} background jobs running (${running.map((job) => job.id).join(", ")}), ` +
          `the most allowed. Stop the ones you no longer need with bash_kill first.`,
      )
    }
    const job = new Job({ ...options, id: this.#newId() })
    this.#jobs.set(job.id, job)
    this.#prune(options.sessionID)
    return job
  }

  /** The session's job with this id, or undefined (a job of another session is not visible). */
  get(sessionID: string, id: string): Job | undefined {
    const job = this.#jobs.get(id.trim())
    return job && job.sessionID === sessionID ? job : undefined
  }

  list(sessionID?: string): Job[] {
    return [...this.#jobs.values()].filter((job) => sessionID === undefined || job.sessionID === sessionID)
  }

  /** Kills every job of the session and forgets them. */
  async killSession(
    sessionID: string,
    by = "the end of the session",
  ): Promise<{ job: Job; report: KillReport }[]> {
    const jobs = this.list(sessionID)
    for (const job of jobs) this.#jobs.delete(job.id)
    return Promise.all(jobs.map(async (job) => ({ job, report: await job.kill(by) })))
  }

  /** SIGKILLs every running job synchronously (the process is exiting). */
  killAllNow(): void {
    for (const job of this.#jobs.values()) {
      if (job.status === "running") job.process.stopNow()
    }
  }

  #newId(): string {
    for (;;) {
      const id = `job_${randomBytes(4).toString("hex")}`
      if (!this.#jobs.has(id)) return id
    }
  }

  #prune(sessionID: string): void {
    const finished = this.list(sessionID).filter((job) => job.status !== "running")
    for (const job of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED_PER_SESSION))) {
      this.#jobs.delete(job.id)
    }
  }
}

/** The process-wide registry the bash tools use. */
export const jobs = new JobRegistry()

/** Kills every background job of a session (call it when the session ends). */
export function killSessionJobs(sessionID: string): Promise<{ job: Job; report: KillReport }[]> {
  return jobs.killSession(sessionID)
}

/**
 * Kills every background job of this process at once (SIGKILL). Exiting, or a SIGINT/SIGTERM/SIGHUP that
 * ends the process, does this already (see `trackLive`): every running command, job or not, dies with it.
 */
export function killAllJobs(): void {
  jobs.killAllNow()
}

function seconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`
  return `${Math.round(ms / 60_000)} min`
}
