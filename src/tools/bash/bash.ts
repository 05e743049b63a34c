// Why one file of ~580 lines: the tool reads as the story of one call (settings, working directory,
// permission, run, result) in the fixed order every tool follows, for a foreground command and for a
// background job; the mechanisms it drives live in src/shell (runner, jobs, parse, sandbox).
import { randomBytes } from "node:crypto"
import { statSync } from "node:fs"
import { homedir, platform, release, tmpdir } from "node:os"
import { resolve } from "node:path"
import { z } from "zod"
import { type Job, JobError, jobs, type ReadyOutcome, waitForReady } from "../../platform/shell/jobs/index.ts"
import {
  directoryPattern,
  type Scan,
  scanCommand,
  type UncheckedPattern,
} from "../../platform/shell/parse/scan.ts"
import {
  chooseShell,
  commandEnv,
  formatBounded,
  formatProcesses,
  previewOf,
  promptAdvice,
  RunningCommand,
  type RunOptions,
  type RunResult,
  ShellChoiceError,
  type ShellInfo,
  SpawnError,
} from "../../platform/shell/run/index.ts"
import {
  describePolicy,
  gitProtectedPaths,
  sandboxArgv,
  sandboxAvailability,
} from "../../platform/shell/sandbox/index.ts"
import type { Unchecked } from "../../runtime/tool/context.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { assertExternalDirectory } from "../kit/external-directory.ts"
import { loadText } from "../kit/load-text.ts"
import {
  DEFAULT_READY_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  readSettings,
  type ShellSettings,
} from "../kit/shell-settings.ts"

export const Parameters = z.object({
  command: z.string().min(1).describe("The command to run, as a shell script (one line or several)."),
  description: z
    .string()
    .optional()
    .describe("What the command does, in 5-10 words, e.g. 'Run the unit tests' or 'Install dependencies'."),
  workdir: z
    .string()
    .optional()
    .describe(
      "Directory to run the command in, absolute or relative to the project directory (default: the project directory). Use this instead of `cd <dir> &&`.",
    ),
  timeout: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      `Time limit in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS} unless configured otherwise). The whole process tree is killed when it passes. Not for background jobs.`,
    ),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      "Start the command as a background job and return its job id at once, for servers, watchers and other long-running processes. Read its output with bash_output and stop it with bash_kill.",
    ),
  ready_port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe(
      "With run_in_background: wait until this TCP port on 127.0.0.1 (or ::1) accepts connections before returning.",
    ),
  ready_pattern: z
    .string()
    .min(1)
    .optional()
    .describe(
      "With run_in_background: wait until the job's output matches this regular expression (JavaScript syntax), e.g. 'Listening on|ready in'.",
    ),
  ready_timeout: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      `With ready_port or ready_pattern: how long to wait for readiness, in milliseconds (default ${DEFAULT_READY_TIMEOUT_MS}).`,
    ),
})

export type BashParams = z.infer<typeof Parameters>

const ABORTED = "User aborted the command"

export interface BashMetadata extends Record<string, unknown> {
  /** The tail of the output (the live preview while it runs). */
  output: string
  /** The exit code; null when the command was killed or has not ended (background). */
  exit: number | null
  truncated: boolean
  outputPath?: string
  description: string
  timedOut?: boolean
  aborted?: boolean
  waitingForInput?: boolean
  /** Pids killed at the end (leftover background processes, or the tree on timeout/abort). */
  killed?: number[]
  sandboxed?: boolean
  jobID?: string
  pid?: number
}

/**
 * The `bash` tool: runs one command with its whole process tree under control.
 *
 * 1. Read the settings and check the arguments: the timeout (a bad or too large value is an error),
 *    the readiness options, the shell, the sandbox (enabled but unavailable: refuse, never run bare).
 * 2. Resolve `workdir` (default: the project); outside the project, ask `external_directory` for it.
 * 3. Scan the command: ask `external_directory` for the other directories outside the project it
 *    touches, then one `bash` ask with every command's pattern and "always" prefix. A command the
 *    scan cannot parse, or cannot see through, is asked for whole: never allowed silently. Patterns
 *    the rules cannot check (a command word computed at run time) go in `metadata.unchecked` with why,
 *    so the permission engine gives them the strictest outcome the rules could give.
 * 4. Run it (see RunningCommand), streaming the tail of the output as progress; or start it as a
 *    background job and wait for readiness if asked.
 * 5. Shape the result: the bounded output, then what happened (exit code, timeout, abort, prompt,
 *    processes killed) in a `<shell_metadata>` block; metadata for UIs (`output`, `exit`, ...).
 */
export const BashTool = Tool.define("bash", () => ({
  description: renderDescription(),
  parameters: Parameters,
  async execute(params: BashParams, ctx: Tool.Context): Promise<Tool.Result<BashMetadata>> {
    // 1. Settings and arguments.
    const settings = readSettings(ctx.extra)
    const background = params.run_in_background === true
    const timeoutMs = checkTimeout(params, settings, background)
    const readiness = checkReadiness(params, settings, background)
    const shell = pickShell(settings)
    const bwrap = checkSandbox(settings)
    const description = params.description?.trim() || ""

    // 2. Working directory.
    const cwd = resolve(settings.directory, params.workdir ?? ".")
    const askedForWorkdir = params.workdir
      ? await assertExternalDirectory(ctx, cwd, { kind: "directory" })
      : false
    checkDirectory(cwd, params.workdir)

    // 3. Permission.
    await askPermission(ctx, params.command, description, cwd, settings, askedForWorkdir)

    // 4. Run.
    const marker = randomBytes(12).toString("hex")
    const hookEnv = settings.shellEnv
      ? await settings.shellEnv.shellEnv({ cwd, sessionID: ctx.sessionID, callID: ctx.callID })
      : {}
    const run: RunOptions = {
      command: params.command,
      cwd,
      shell,
      env: commandEnv({ hook: hookEnv, marker }),
      marker,
      limits: settings.limits,
      storeDir: settings.storeDir,
      ...(bwrap
        ? { wrap: (argv: readonly string[]) => sandboxArgv(bwrap, sandboxPolicy(settings, cwd), argv) }
        : {}),
    }
    const title = clip(description || params.command, 100)
    if (background) {
      return startJob({ ctx, params, run, readiness, description, title, sandboxed: bwrap !== undefined })
    }
    // After an abort the runtime records the call as soon as its grace period passes, with the last
    // progress as metadata: from then on, progress carries the partial output and says what happened.
    const progress = (tail: string) => {
      const output = previewOf(tail)
      ctx.metadata({
        title,
        metadata: { output: ctx.abort.aborted ? withNotes(output, [ABORTED]) : output, description },
      })
    }
    let command: RunningCommand
    try {
      command = new RunningCommand({
        ...run,
        timeoutMs,
        signal: ctx.abort,
        promptIdleMs: settings.promptIdleMs,
        onProgress: progress,
      })
    } catch (error) {
      throw spawnFailure(error, shell)
    }
    const onAbort = () => progress(command.capture.tail())
    ctx.abort.addEventListener("abort", onAbort, { once: true })
    let result: RunResult
    try {
      result = await command.done
    } catch (error) {
      throw spawnFailure(error, shell)
    } finally {
      ctx.abort.removeEventListener("abort", onAbort)
    }

    // 5. Result.
    const notes = describeEnd(result, timeoutMs, settings)
    if (bwrap && result.reason === "exit" && result.exitCode !== 0) {
      notes.push(`The command ran in the sandbox (${describePolicy(sandboxPolicy(settings, cwd))}).`)
    }
    const output = withNotes(formatBounded(result.output, { pager: settings.pager }), notes)
    const metadata: BashMetadata = {
      output: withNotes(previewOf(result.output.tail), notes),
      exit: result.exitCode,
      truncated: result.output.truncated,
      ...(result.output.outputPath && result.output.truncated
        ? { outputPath: result.output.outputPath }
        : {}),
      description,
      ...(result.reason === "timeout" ? { timedOut: true } : {}),
      ...(result.reason === "abort" ? { aborted: true } : {}),
      ...(result.reason === "prompt" ? { waitingForInput: true } : {}),
      ...(result.killed.length ? { killed: result.killed.map((info) => info.pid) } : {}),
      ...(bwrap ? { sandboxed: true } : {}),
    }
    return { title, output, metadata }
  },
}))

function renderDescription(): string {
  const shell = safeShellName()
  return loadText(import.meta.url, "description.txt")
    .replaceAll("{{shell}}", shell)
    .replaceAll("{{os}}", `${platform()} ${release()}`)
    .replaceAll("{{tmp}}", tmpdir())
    .replaceAll("{{timeout}}", String(DEFAULT_TIMEOUT_MS))
    .replaceAll("{{maxTimeout}}", String(MAX_TIMEOUT_MS))
    .replaceAll("{{maxLines}}", "2000")
    .replaceAll("{{maxKB}}", "50")
}

function safeShellName(): string {
  try {
    return chooseShell().name
  } catch {
    return "bash"
  }
}

function checkTimeout(params: BashParams, settings: ShellSettings, background: boolean): number | undefined {
  if (background) {
    if (params.timeout !== undefined) {
      throw new Tool.ToolFailure(
        "timeout applies to commands that run in the foreground. A background job runs until it exits or bash_kill stops it; " +
          "to wait for it to come up, use ready_port, ready_pattern and ready_timeout.",
      )
    }
    return undefined
  }
  const timeout = params.timeout ?? settings.defaultTimeoutMs
  if (timeout > settings.maxTimeoutMs) {
    throw new Tool.ToolFailure(
      `timeout ${timeout} ms is more than the maximum of ${settings.maxTimeoutMs} ms (${Math.round(settings.maxTimeoutMs / 60_000)} min). ` +
        "Use a smaller timeout, split the work into shorter commands, or start it with run_in_background: true and follow it with bash_output.",
    )
  }
  return timeout
}

interface ReadinessRequest {
  port?: number
  pattern?: RegExp
  timeoutMs: number
}

function checkReadiness(
  params: BashParams,
  settings: ShellSettings,
  background: boolean,
): ReadinessRequest | undefined {
  const asked = params.ready_port !== undefined || params.ready_pattern !== undefined
  if (!asked) {
    if (params.ready_timeout !== undefined) {
      throw new Tool.ToolFailure(
        "ready_timeout needs ready_port or ready_pattern (and run_in_background: true).",
      )
    }
    return undefined
  }
  if (!background) {
    throw new Tool.ToolFailure(
      "ready_port and ready_pattern only apply to background jobs: add run_in_background: true, or drop them.",
    )
  }
  let pattern: RegExp | undefined
  if (params.ready_pattern !== undefined) {
    try {
      pattern = new RegExp(params.ready_pattern, "m")
    } catch (error) {
      throw new Tool.ToolFailure(
        `ready_pattern ${JSON.stringify(params.ready_pattern)} is not a valid regular expression: ${(error as Error).message}.`,
      )
    }
  }
  const timeoutMs = params.ready_timeout ?? Math.min(DEFAULT_READY_TIMEOUT_MS, settings.maxTimeoutMs)
  if (timeoutMs > settings.maxTimeoutMs) {
    throw new Tool.ToolFailure(
      `ready_timeout ${timeoutMs} ms is more than the maximum of ${settings.maxTimeoutMs} ms. Use a smaller value; the job keeps running after it anyway.`,
    )
  }
  return {
    ...(params.ready_port !== undefined ? { port: params.ready_port } : {}),
    ...(pattern ? { pattern } : {}),
    timeoutMs,
  }
}

function pickShell(settings: ShellSettings): ShellInfo {
  try {
    return chooseShell(settings.shell === undefined ? {} : { configured: settings.shell })
  } catch (error) {
    if (error instanceof ShellChoiceError) throw new Tool.ToolFailure(error.message)
    throw error
  }
}

/** The bwrap path when the sandbox is on; a refusal when it is on but cannot work here. */
function checkSandbox(settings: ShellSettings): string | undefined {
  if (!settings.sandbox) return undefined
  const availability = sandboxAvailability()
  if (!availability.available) {
    throw new Tool.ToolFailure(
      `The shell sandbox is enabled (shell.sandbox), but it cannot run here: ${availability.reason}. ` +
        "The command was not run: commands are never run unsandboxed while the sandbox is enabled. " +
        "Tell the user, who can fix the sandbox or turn it off.",
    )
  }
  return availability.bwrap
}

function sandboxPolicy(settings: ShellSettings, cwd: string) {
  const sandbox = settings.sandbox!
  return {
    project: settings.directory,
    tmp: settings.tmp,
    writable: sandbox.writable.map((path) => resolve(settings.directory, path)),
    protect: [...gitProtectedPaths(settings.directory), settings.dataDir],
    network: sandbox.network,
    cwd,
  }
}

function checkDirectory(cwd: string, given: string | undefined): void {
  // Synchronous: one stat is cheaper than a round trip through the thread pool.
  try {
    if (statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) return
  } catch {}
  const what = given === undefined ? "The project directory" : `workdir ${JSON.stringify(given)}`
  throw new Tool.ToolFailure(
    `${what} (${cwd}) does not exist or is not a directory. Use an existing directory.`,
  )
}

/**
 * Step 3: one `external_directory` ask for the directories outside the project (the workdir was asked
 * for already), then one `bash` ask for every command found. When the scan failed or could not see
 * through part of the command, the whole command text is a pattern too, so only a rule that covers
 * the whole command (or an answer from a person) lets it run.
 */
async function askPermission(
  ctx: Tool.Context,
  command: string,
  description: string,
  cwd: string,
  settings: ShellSettings,
  askedForWorkdir: boolean,
): Promise<void> {
  let scan: Scan | undefined
  try {
    scan = await scanCommand(command, {
      cwd,
      directory: settings.directory,
      ...(settings.worktree ? { worktree: settings.worktree } : {}),
      home: homedir(),
    })
  } catch {
    scan = undefined
  }
  const directories = (scan?.externalDirectories ?? []).filter((dir) => !(askedForWorkdir && dir === cwd))
  if (directories.length) {
    const patterns = directories.map(directoryPattern)
    await ctx.ask({
      permission: "external_directory",
      patterns,
      always: patterns,
      metadata: { command, directories, patterns },
    })
  }
  const sure = scan?.parsed === true && !scan.reasons?.length
  const patterns = scan ? [...scan.patterns] : []
  const always = scan ? [...scan.always] : []
  if (!sure && !patterns.includes(command)) {
    patterns.unshift(command)
    always.unshift(command)
  }
  if (patterns.length === 0) return
  const unchecked = scan?.unchecked?.length ? uncheckedAsk(scan.unchecked) : undefined
  await ctx.ask({
    permission: "bash",
    patterns,
    always,
    metadata: {
      command,
      ...(description ? { description } : {}),
      patterns,
      ...(unchecked ? { unchecked } : {}),
      ...(scan === undefined ? { reasons: ["the command could not be scanned"] } : {}),
      ...(scan && !scan.parsed
        ? { reasons: ["the command could not be parsed", ...(scan.reasons ?? [])] }
        : {}),
      ...(scan?.parsed && scan.reasons?.length ? { reasons: scan.reasons } : {}),
    },
  })
}

/**
 * The ask's `unchecked` metadata (see permission/unchecked.ts): the patterns whose commands the rules
 * cannot check, why, and what to do, which is what a refusal says when no one can be asked.
 */
function uncheckedAsk(entries: readonly UncheckedPattern[]): Unchecked {
  return {
    patterns: entries.map((entry) => entry.pattern),
    reason: entries
      .map((entry) => `The rules cannot check \`${clip(entry.pattern, 200)}\`: ${entry.reason}.`)
      .join(" "),
    advice:
      "Write each command literally, with the program it runs as its first word (`rm x`, not `$(echo rm) x`, `$CMD x`, " +
      '`eval "$x"` or `sh -c "$x"`), and run the commands of a script or a download directly rather than through ' +
      "`source` or a pipe into a shell, so the rules can check them.",
  }
}

/** What happened, for the `<shell_metadata>` block. */
function describeEnd(result: RunResult, timeoutMs: number | undefined, settings: ShellSettings): string[] {
  const notes: string[] = []
  switch (result.reason) {
    case "timeout":
      notes.push(
        `bash tool terminated command after exceeding timeout ${timeoutMs} ms. If this command is expected to take longer ` +
          `and is not waiting for interactive input, retry with a larger timeout value in milliseconds (at most ${settings.maxTimeoutMs}), ` +
          "or start it with run_in_background: true.",
      )
      break
    case "abort":
      notes.push(ABORTED)
      break
    case "prompt":
      notes.push(promptAdvice(result.prompt ?? "", settings.promptIdleMs))
      break
    case "exit":
      if (result.signal) notes.push(`The command was terminated by signal ${result.signal}.`)
      else if (result.exitCode !== 0) notes.push(`Exit code: ${result.exitCode}`)
      break
    case "killed":
      notes.push("The command was killed.")
      break
  }
  if (result.leftovers.length) {
    notes.push(
      `Killed ${result.leftovers.length} process(es) the command left running in the background (${formatProcesses(result.leftovers)}): ` +
        "a call ends when its command does. Start servers and watchers with run_in_background: true.",
    )
  } else if (result.reason !== "exit" && result.killed.length) {
    notes.push(`Killed: ${formatProcesses(result.killed)}.`)
  }
  if (result.survivors.length) {
    notes.push(
      `These processes could not be killed and may still be running: ${formatProcesses(result.survivors)}.`,
    )
  }
  return notes
}

function withNotes(text: string, notes: readonly string[]): string {
  if (notes.length === 0) return text
  return `${text}\n\n<shell_metadata>\n${notes.join("\n")}\n</shell_metadata>`
}

function spawnFailure(error: unknown, shell: ShellInfo): unknown {
  if (error instanceof SpawnError) {
    return new Tool.ToolFailure(
      `${error.message}. Check that ${shell.path} exists and the working directory is accessible.`,
    )
  }
  return error
}

interface StartJob {
  ctx: Tool.Context
  params: BashParams
  run: RunOptions
  readiness: ReadinessRequest | undefined
  description: string
  title: string
  sandboxed: boolean
}

/** `run_in_background`: start the job, wait for readiness when asked, and report how to follow it. */
async function startJob(options: StartJob): Promise<Tool.Result<BashMetadata>> {
  const { ctx, params, run, readiness, description, title, sandboxed } = options
  let job: Job
  try {
    job = jobs.start({ sessionID: ctx.sessionID, ...(description ? { description } : {}), run })
  } catch (error) {
    if (error instanceof JobError) throw new Tool.ToolFailure(error.message)
    throw spawnFailure(error, run.shell)
  }
  job.process.done.catch(() => {})
  if (job.pid < 0) throw spawnFailure(await job.process.done.catch((error: unknown) => error), run.shell)
  let outcome: ReadyOutcome | undefined
  if (readiness) {
    ctx.metadata({ title, metadata: { output: "", description, jobID: job.id, pid: job.pid } })
    outcome = await waitForReady(job.process, readiness, ctx.abort)
    if (!outcome.ready && outcome.why === "aborted") {
      // Nobody was told the job id: it must not outlive the call that started it.
      await job.kill("the aborted call that started it")
    }
  }
  const read = await job.readNew(run.limits)
  const lines: string[] = []
  const follow = `Read its new output with bash_output (job_id "${job.id}") and stop it with bash_kill.`
  if (!outcome) {
    lines.push(`Started background job ${job.id} (pid ${job.pid}): ${params.command}`, follow)
  } else if (outcome.ready) {
    lines.push(`Background job ${job.id} (pid ${job.pid}) is ready: ${outcome.detail}.`, follow)
  } else if (outcome.why === "exited") {
    lines.push(
      `Background job ${job.id} ${job.describeStatus()} before it was ready (${describeReadiness(readiness!)}). Its output is below.`,
    )
  } else if (outcome.why === "timeout") {
    lines.push(
      `Background job ${job.id} (pid ${job.pid}) is still running, but was not ready after ${readiness!.timeoutMs} ms (${describeReadiness(readiness!)}). ` +
        "Check its output below; it may need more time, a different port or pattern, or it may be stuck.",
      follow,
    )
  } else {
    lines.push(`User aborted the command; background job ${job.id} was stopped.`)
  }
  if (job.logPath) lines.push(`Its full log is written to ${job.logPath}.`)
  const body = formatBounded(read.output, { empty: "(no output yet)", pager: readSettings(ctx.extra).pager })
  const output = `${lines.join("\n")}\n\nOutput so far:\n${body}`
  const exit = job.result?.exitCode ?? null
  return {
    title,
    output,
    metadata: {
      output: previewOf(job.process.capture.tail()),
      exit,
      truncated: read.output.truncated,
      ...(read.output.truncated && job.logPath ? { outputPath: job.logPath } : {}),
      description,
      jobID: job.id,
      pid: job.pid,
      ...(sandboxed ? { sandboxed: true } : {}),
    },
  }
}

function describeReadiness(readiness: ReadinessRequest): string {
  const parts: string[] = []
  if (readiness.port !== undefined) parts.push(`waiting for port ${readiness.port}`)
  if (readiness.pattern) parts.push(`waiting for output matching /${readiness.pattern.source}/`)
  return parts.join(" and ")
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
