import { type Job, type JobRead, jobs } from "../../platform/shell/jobs/index.ts"
import { formatBounded } from "../../platform/shell/run/index.ts"
import type { Pager } from "../../platform/text/hint.ts"
import * as Tool from "../../runtime/tool/index.ts"

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
        ? ` Its jobs: ${known.join("; ")}.`
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
