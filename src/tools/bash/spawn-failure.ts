import { type ShellInfo, SpawnError } from "../../platform/shell/run/index.ts"
import * as Tool from "../../runtime/tool/index.ts"

/** A shell that could not be started, as a failure that says what to check; any other error as it is. */
export function spawnFailure(error: unknown, shell: ShellInfo): unknown {
  if (error instanceof SpawnError) {
    return new Tool.ToolFailure(
      `${error.message}. Check that ${shell.path} exists and the working directory is accessible.`,
    )
  }
  return error
}
