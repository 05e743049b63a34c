import { z } from "zod"
import { formatProcesses } from "../../platform/shell/run/index.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { loadText } from "../kit/load-text.ts"
import { formatRead, sessionJob } from "../kit/session-job.ts"
import { readSettings } from "../kit/shell-settings.ts"

export const Parameters = z.object({
  job_id: z
    .string()
    .min(1)
    .describe('The id of the background job to stop, as bash returned it (e.g. "job_1a2b3c4d").'),
})

/**
 * `bash_kill`: stops a background job's whole process tree.
 * 1. Find the job in this session.
 * 2. Kill the tree (SIGTERM, SIGKILL after the grace period) and wait until it is gone.
 * 3. Report what was killed and the output printed since the last read.
 */
export const BashKillTool = Tool.define(
  "bash_kill",
  {
    description: loadText(import.meta.url, "description.txt"),
    parameters: Parameters,
    async execute(params, ctx) {
      const settings = readSettings(ctx.extra)
      const job = sessionJob({ sessionID: ctx.sessionID, id: params.job_id })
      const wasRunning = job.status === "running"
      const report = await job.kill("bash_kill")
      const read = await job.readNew(settings.limits)
      const lines: string[] = []
      if (!wasRunning)
        lines.push(`Job ${job.id} was not running any more (${job.describeStatus()}); nothing to kill.`)
      else if (report.killed.length)
        lines.push(`Killed job ${job.id}: ${formatProcesses(report.killed, 20)}.`)
      else lines.push(`Job ${job.id} had already ended.`)
      if (report.survivors.length) {
        lines.push(
          `These processes could not be killed and may still be running: ${formatProcesses(report.survivors)}.`,
        )
      }
      return {
        title: `Kill ${job.id}`,
        output: `${lines.join("\n")}\n\n${formatRead(read)}`,
        metadata: {
          truncated: read.output.truncated,
          ...(read.output.truncated && job.logPath ? { outputPath: job.logPath } : {}),
          jobID: job.id,
          killed: report.killed.map((info) => info.pid),
          status: job.status,
          exit: job.result?.exitCode ?? null,
        },
      }
    },
  },
  // Stops what bash started: shown only while bash is allowed.
  { permission: "bash" },
)
