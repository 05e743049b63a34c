import { z } from "zod"
import { type Job, type JobRead, jobs } from "../../platform/shell/jobs/index.ts"
import { formatBounded } from "../../platform/shell/run/index.ts"
import type { Pager } from "../../platform/text/hint.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { readSettings, type ShellSettings } from "./shell-settings.ts"

/** The parameters of a tool that acts on a background job: the job's id alone, as bash returned it. */
type JobParameters = z.ZodObject<{ job_id: z.ZodString }>

/**
 * Defines a tool that acts on one of this session's background jobs (bash_output, bash_kill); its
 * parameters are `job_id` alone, described to the model by `jobIdDescription` (built on first use, a
 * `Tool.schema` keyed by the tool's id).
 * 1. Read the shell settings from the call's `ctx.extra`.
 * 2. Find the job in this session (`sessionJob`: another session's jobs do not exist here).
 * 3. Hand both to the tool's `act`, whose result is the call's.
 * Such a tool reads or stops what bash started, so it is shown only while `bash` is allowed.
 */
export function defineJobTool<M extends Record<string, unknown>>(options: {
  id: string
  /** Read when the tool is initialised, not when its module is evaluated. */
  description: () => string
  jobIdDescription: string
  act(input: { job: Job; settings: ShellSettings }): Promise<Tool.Result<M>>
  pollable?: (result: Tool.Result<M>) => boolean
  annotations: Tool.Annotations
}): Tool.Info<JobParameters, M> {
  const { id, description, jobIdDescription, act, pollable, annotations } = options
  const parameters = builtinSchema(id, () =>
    z.object({ job_id: z.string().min(1).describe(jobIdDescription) }),
  )
  return Tool.define(
    id,
    () => ({
      description: description(),
      parameters,
      async execute(params, ctx) {
        const settings = readSettings(ctx.extra)
        const job = sessionJob({ sessionID: ctx.sessionID, id: params.job_id })
        return act({ job, settings })
      },
      ...(pollable ? { pollable } : {}),
    }),
    { permission: "bash", annotations },
  )
}

/**
 * The background job `id` of this session, for the tools that act on a job (bash_output, bash_kill).
 * 1. Look the job up among this session's jobs (another session's jobs do not exist here).
 * 2. None: a `ToolFailure` listing the session's jobs, or saying how to start one.
 */
export function sessionJob(options: { sessionID: string; id: string }): Job {
  const { sessionID, id } = options
  const job = jobs.get(sessionID, id)
  if (job) return job
  const known = jobs
    .list(sessionID)
    .map((job) => `${job.id} (${job.description ?? job.command}, ${job.status})`)
  throw new Tool.ToolFailure(
    `There is no background job ${JSON.stringify(id)} in this session.` +
      (known.length
        ? ` Its jobs: ${known.join("; ")}. Use one of these ids.`
        : " It has no background jobs; start one with bash and run_in_background: true."),
  )
}

/** `Job job_x (npm run dev): running for 12 s (pid 1234)` and the new output. */
export function formatRead(read: JobRead, pager?: () => Pager | undefined): string {
  const { job } = read
  const head = `Job ${job.id} (${job.description ?? job.command}): ${job.describeStatus()}.`
  const body = formatBounded(read.output, { empty: "(no new output)", ...(pager ? { pager } : {}) })
  return `${head}\n\nNew output:\n${body}`
}

/** The metadata every read of a job carries: whether it was cut, where the whole log is, which job. */
export function readMetadata(read: JobRead): { truncated: boolean; outputPath?: string; jobID: string } {
  const { job, output } = read
  return {
    truncated: output.truncated,
    ...(output.truncated && job.logPath ? { outputPath: job.logPath } : {}),
    jobID: job.id,
  }
}
