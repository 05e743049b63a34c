import { type Job, jobs } from "../../shell/jobs/index.ts"
import * as Tool from "../../tool/index.ts"

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
