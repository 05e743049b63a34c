import { z } from "zod"
import { previewOf } from "../../platform/shell/run/index.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { loadText } from "../kit/load-text.ts"
import { formatRead, sessionJob } from "../kit/session-job.ts"
import { readSettings } from "../kit/shell-settings.ts"

export const Parameters = z.object({
  job_id: z
    .string()
    .min(1)
    .describe('The id of the background job, as bash returned it (e.g. "job_1a2b3c4d").'),
})

/**
 * `bash_output`: the new output of a background job and its state.
 * 1. Find the job in this session (another session's jobs do not exist here).
 * 2. Read what it printed since the last read, bounded like a command's output.
 * 3. Say whether it runs, or how it ended.
 * While the job runs the result is a poll (`pollable`): the loop guard never counts it.
 */
export const BashOutputTool = Tool.define(
  "bash_output",
  {
    description: loadText(import.meta.url, "description.txt"),
    parameters: Parameters,
    async execute(params, ctx) {
      const settings = readSettings(ctx.extra)
      const job = sessionJob({ sessionID: ctx.sessionID, id: params.job_id })
      const read = await job.readNew(settings.limits)
      return {
        title: `Output of ${job.id}`,
        output: formatRead(read, settings.pager),
        metadata: {
          output: previewOf(job.process.capture.tail()),
          truncated: read.output.truncated,
          ...(read.output.truncated && job.logPath ? { outputPath: job.logPath } : {}),
          jobID: job.id,
          status: read.status,
          exit: job.result?.exitCode ?? null,
        },
      }
    },
    // Polling a running job is what this tool is for: "no new output yet" again is not a loop. Once the
    // job ended its answer can no longer change, so asking again counts like any repeated call.
    pollable: (result) => result.metadata.status === "running",
  },
  // Reads what bash started: shown only while bash is allowed.
  { permission: "bash" },
)
