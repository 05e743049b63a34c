import { formatProcesses } from "../../platform/shell/run/index.ts"
import { WRITES } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { defineJobTool, formatRead, readMetadata } from "../kit/session-job.ts"

/**
 * `bash_kill`: stops a background job of this session (found by `defineJobTool`): kills its whole
 * process tree (SIGTERM, SIGKILL after the grace period), waits until the tree is gone, and reports
 * what was killed and the output printed since the last read.
 */
export const BashKillTool = defineJobTool({
  annotations: WRITES,
  id: "bash_kill",
  description: () => loadText(import.meta.url, "description.txt"),
  jobIdDescription: 'The id of the background job to stop, as bash returned it (e.g. "job_1a2b3c4d").',
  async act({ job, settings }) {
    const wasRunning = job.status === "running"
    const report = await job.kill("bash_kill")
    const read = await job.readNew(settings.limits)
    const lines: string[] = []
    if (!wasRunning)
      lines.push(`Job ${job.id} was not running any more (${job.describeStatus()}); nothing to kill.`)
    else if (report.killed.length) lines.push(`Killed job ${job.id}: ${formatProcesses(report.killed, 20)}.`)
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
        ...readMetadata(read),
        killed: report.killed.map((info) => info.pid),
        status: job.status,
        exit: job.result?.exitCode ?? null,
      },
    }
  },
})
