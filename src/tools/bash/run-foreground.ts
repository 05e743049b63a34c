import { previewOf, RunningCommand, type RunOptions, type RunResult } from "../../platform/shell/run/index.ts"
import type * as Tool from "../../runtime/tool/index.ts"
import type { ShellSettings } from "../kit/shell-settings.ts"
import { ABORTED, withNotes } from "./shell-metadata.ts"
import { spawnFailure } from "./spawn-failure.ts"

/**
 * Step 4 of a foreground `bash` call: runs the command (see RunningCommand) until it ends, times out,
 * is aborted or waits for input, streaming the tail of its output as progress.
 */
export async function runForeground(options: {
  ctx: Tool.Context
  run: RunOptions
  timeoutMs: number | undefined
  settings: ShellSettings
  title: string
  description: string
}): Promise<RunResult> {
  const { ctx, run, timeoutMs, settings, title, description } = options
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
    throw spawnFailure(error)
  }
  const onAbort = () => progress(command.capture.tail())
  ctx.abort.addEventListener("abort", onAbort, { once: true })
  try {
    return await command.done
  } catch (error) {
    throw spawnFailure(error)
  } finally {
    ctx.abort.removeEventListener("abort", onAbort)
  }
}
