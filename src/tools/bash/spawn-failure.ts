import { SpawnError } from "../../platform/shell/run/index.ts"
import * as Tool from "../../runtime/tool/index.ts"

/**
 * A shell that could not be started, as a failure that says what to check: a command too long to pass
 * to it (E2BIG), or the program itself (SpawnError's message says which and what to check). Any other
 * error as it is.
 */
export function spawnFailure(error: unknown): unknown {
  if (error instanceof SpawnError) {
    if ((error.cause as { code?: unknown } | undefined)?.code === "E2BIG") {
      return new Tool.ToolFailure(
        "The command is longer than the system lets a shell be started with (on Linux 128 KiB), so nothing was run. Write a long script to a file and run that file instead.",
      )
    }
    // The message names the program that did not start (the shell, or the sandbox or reaper before it)
    // and what to check.
    return new Tool.ToolFailure(error.message)
  }
  return error
}
