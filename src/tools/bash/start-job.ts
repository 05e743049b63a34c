import { type Job, JobError, jobs, type ReadyOutcome, waitForReady } from "../../platform/shell/jobs/index.ts"
import { formatBounded, previewOf, type RunOptions } from "../../platform/shell/run/index.ts"
import * as Tool from "../../runtime/tool/index.ts"
import type { ShellSettings } from "../kit/shell-settings.ts"
import type { ReadinessRequest } from "./check-arguments.ts"
import type { BashMetadata } from "./metadata.ts"
import { spawnFailure } from "./spawn-failure.ts"

/**
 * Steps 4 and 5 of a `run_in_background` call: start the job, wait for readiness when asked, and
 * report how to follow it with the output so far.
 */
export async function startJob(options: {
  ctx: Tool.Context
  run: RunOptions
  readiness: ReadinessRequest | undefined
  settings: ShellSettings
  description: string
  title: string
  sandboxed: boolean
}): Promise<Tool.Result<BashMetadata>> {
  const { ctx, run, readiness, settings, description, title, sandboxed } = options
  let job: Job
  try {
    job = jobs.start({ sessionID: ctx.sessionID, ...(description ? { description } : {}), run })
  } catch (error) {
    if (error instanceof JobError) throw new Tool.ToolFailure(error.message)
    throw spawnFailure(error)
  }
  job.process.done.catch(() => {})
  if (job.pid < 0) throw spawnFailure(await job.process.done.catch((error: unknown) => error))
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
    lines.push(`Started background job ${job.id} (pid ${job.pid}): ${run.command}`, follow)
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
  const body = formatBounded(read.output, { empty: "(no output yet)", pager: settings.pager })
  const output = `${lines.join("\n")}\n\nOutput so far:\n${body}`
  return {
    title,
    output,
    metadata: {
      output: previewOf(job.process.capture.tail()),
      exit: job.result?.exitCode ?? null,
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
