import { formatProcesses, promptAdvice, type RunResult } from "../../platform/shell/run/index.ts"
import type { ShellSettings } from "../kit/shell-settings.ts"

// The `<shell_metadata>` block: what happened to a command, told to the model after its output.

export const ABORTED = "User aborted the command"

/** `text`, then the notes in a `<shell_metadata>` block (none: `text` alone). */
export function withNotes(text: string, notes: readonly string[]): string {
  if (notes.length === 0) return text
  return `${text}\n\n<shell_metadata>\n${notes.join("\n")}\n</shell_metadata>`
}

/** What happened, for the `<shell_metadata>` block: how the command ended and what was killed. */
export function describeEnd(
  result: RunResult,
  timeoutMs: number | undefined,
  settings: ShellSettings,
): string[] {
  const notes: string[] = []
  switch (result.reason) {
    case "timeout":
      notes.push(
        `bash tool terminated command after exceeding timeout ${timeoutMs} ms. If this command is expected to take longer ` +
          `and is not waiting for interactive input, retry with a larger timeout value in milliseconds (at most ${settings.maxTimeoutMs}), ` +
          "or start it with run_in_background: true.",
      )
      break
    case "abort":
      notes.push(ABORTED)
      break
    case "prompt":
      notes.push(promptAdvice(result.prompt ?? "", settings.promptIdleMs))
      break
    case "exit":
      if (result.signal) notes.push(`The command was terminated by signal ${result.signal}.`)
      else if (result.exitCode !== 0) notes.push(`Exit code: ${result.exitCode}`)
      break
    case "killed":
      notes.push("The command was killed.")
      break
  }
  if (result.leftovers.length) {
    notes.push(
      `Killed ${result.leftovers.length} process(es) the command left running in the background (${formatProcesses(result.leftovers)}): ` +
        "a call ends when its command does. Start servers and watchers with run_in_background: true.",
    )
  } else if (result.reason !== "exit" && result.killed.length) {
    notes.push(`Killed: ${formatProcesses(result.killed)}.`)
  }
  if (result.survivors.length) {
    notes.push(
      `These processes could not be killed and may still be running: ${formatProcesses(result.survivors)}.`,
    )
  }
  return notes
}
