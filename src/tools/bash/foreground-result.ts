import { formatBounded, previewOf, type RunResult } from "../../platform/shell/run/index.ts"
import { describePolicy } from "../../platform/shell/sandbox/index.ts"
import type * as Tool from "../../runtime/tool/index.ts"
import type { ShellSettings } from "../kit/shell-settings.ts"
import type { BashMetadata } from "./metadata.ts"
import { sandboxPolicy } from "./sandbox.ts"
import { describeEnd, withNotes } from "./shell-metadata.ts"

/**
 * Step 5 of a foreground `bash` call: the bounded output, then what happened (exit code, timeout,
 * abort, prompt, processes killed, the sandbox a failed command ran in) in a `<shell_metadata>` block;
 * metadata for UIs (`output`, `exit`, ...).
 */
export function foregroundResult(options: {
  result: RunResult
  timeoutMs: number | undefined
  settings: ShellSettings
  cwd: string
  sandboxed: boolean
  title: string
  description: string
}): Tool.Result<BashMetadata> {
  const { result, timeoutMs, settings, cwd, sandboxed, title, description } = options
  const notes = describeEnd(result, timeoutMs, settings)
  if (sandboxed && result.reason === "exit" && result.exitCode !== 0) {
    notes.push(`The command ran in the sandbox (${describePolicy(sandboxPolicy(settings, cwd))}).`)
  }
  const output = withNotes(formatBounded(result.output, { pager: settings.pager }), notes)
  const metadata: BashMetadata = {
    output: withNotes(previewOf(result.output.tail), notes),
    exit: result.exitCode,
    truncated: result.output.truncated,
    ...(result.output.outputPath && result.output.truncated ? { outputPath: result.output.outputPath } : {}),
    description,
    ...(result.reason === "timeout" ? { timedOut: true } : {}),
    ...(result.signal ? { signal: result.signal } : {}),
    ...(result.reason === "abort" ? { aborted: true } : {}),
    ...(result.reason === "prompt" ? { waitingForInput: true } : {}),
    ...(result.killed.length ? { killed: result.killed.map((info) => info.pid) } : {}),
    ...(sandboxed ? { sandboxed: true } : {}),
  }
  return { title, output, metadata }
}
