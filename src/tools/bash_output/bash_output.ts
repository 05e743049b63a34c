import { previewOf } from "../../platform/shell/run/index.ts"
import { READS_ONLY } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { defineJobTool, formatRead, readMetadata } from "../kit/session-job.ts"

/**
 * `bash_output`: the new output of a background job of this session (found by `defineJobTool`;
 * another session's jobs do not exist here), bounded like a command's output, and whether the job
 * runs or how it ended. While the job runs the result is a poll (`pollable`): the loop guard never
 * counts it.
 */
export const BashOutputTool = defineJobTool({
  annotations: READS_ONLY,
  id: "bash_output",
  description: () => loadText(import.meta.url, "description.txt"),
  jobIdDescription: 'The id of the background job, as bash returned it (e.g. "job_1a2b3c4d").',
  async act({ job, settings }) {
    const read = await job.readNew(settings.limits)
    return {
      title: `Output of ${job.id}`,
      output: formatRead(read, settings.pager),
      metadata: {
        output: previewOf(job.process.capture.tail()),
        ...readMetadata(read),
        status: read.status,
        exit: job.result?.exitCode ?? null,
      },
    }
  },
  // Polling a running job is what this tool is for: "no new output yet" again is not a loop. Once the
  // job ended its answer can no longer change, so asking again counts like any repeated call.
  pollable: (result) => result.metadata.status === "running",
})
