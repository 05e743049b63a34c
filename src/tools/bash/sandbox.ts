import { resolve } from "node:path"
import { gitProtectedPaths, sandboxAvailability } from "../../platform/shell/sandbox/index.ts"
import * as Tool from "../../runtime/tool/index.ts"
import type { ShellSettings } from "../kit/shell-settings.ts"

/** The bwrap path when the sandbox is on; a refusal when it is on but cannot work here. */
export function checkSandbox(settings: ShellSettings): string | undefined {
  if (!settings.sandbox) return undefined
  const availability = sandboxAvailability()
  if (!availability.available) {
    throw new Tool.ToolFailure(
      `The shell sandbox is enabled (shell.sandbox), but it cannot run here: ${availability.reason}. ` +
        "The command was not run: commands are never run unsandboxed while the sandbox is enabled. " +
        'Ask the user to fix the sandbox or turn it off ("shell": {"sandbox": false} in toolbelt.json).',
    )
  }
  return availability.bwrap
}

/** What a sandboxed command in `cwd` may see and write (the sandbox must be on). */
export function sandboxPolicy(settings: ShellSettings, cwd: string) {
  const sandbox = settings.sandbox!
  return {
    project: settings.directory,
    tmp: settings.tmp,
    writable: sandbox.writable.map((path) => resolve(settings.directory, path)),
    protect: [...gitProtectedPaths(settings.directory), settings.dataDir],
    network: sandbox.network,
    cwd,
  }
}
