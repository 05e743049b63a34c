import { statSync } from "node:fs"
import { chooseShell, ShellChoiceError, type ShellInfo } from "../../platform/shell/run/index.ts"
import { CallerRegexError, compileCallerRegex } from "../../platform/text/caller-regex.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { DEFAULT_READY_TIMEOUT_MS, type ShellSettings } from "../kit/shell-settings.ts"

// The checks made before anything runs: each refuses a bad argument with what to do instead.

/** The time limit of a foreground command; none for a background job, which must not be given one. */
export function checkTimeout(options: {
  timeout: number | undefined
  background: boolean
  settings: ShellSettings
}): number | undefined {
  const { timeout: given, background, settings } = options
  if (background) {
    if (given !== undefined) {
      throw new Tool.ToolFailure(
        "timeout applies to commands that run in the foreground: drop it for a background job, which runs until it exits or bash_kill stops it. " +
          "To wait for the job to come up, use ready_port, ready_pattern and ready_timeout.",
      )
    }
    return undefined
  }
  const timeout = given ?? settings.defaultTimeoutMs
  if (timeout > settings.maxTimeoutMs) {
    throw new Tool.ToolFailure(
      `timeout ${timeout} ms is more than the maximum of ${settings.maxTimeoutMs} ms (${Math.round(settings.maxTimeoutMs / 60_000)} min). ` +
        "Use a smaller timeout, split the work into shorter commands, or start it with run_in_background: true and follow it with bash_output.",
    )
  }
  return timeout
}

/** What a background job must show before the call returns: a port that accepts, a line that matches. */
export interface ReadinessRequest {
  port?: number
  pattern?: RegExp
  timeoutMs: number
}

/** The readiness wait asked for by `ready_port`, `ready_pattern` and `ready_timeout`, if any. */
export function checkReadiness(options: {
  port: number | undefined
  pattern: string | undefined
  timeout: number | undefined
  background: boolean
  settings: ShellSettings
}): ReadinessRequest | undefined {
  const { port, timeout, background, settings } = options
  if (port === undefined && options.pattern === undefined) {
    if (timeout !== undefined) {
      throw new Tool.ToolFailure(
        "ready_timeout needs ready_port or ready_pattern (and run_in_background: true).",
      )
    }
    return undefined
  }
  if (!background) {
    throw new Tool.ToolFailure(
      "ready_port and ready_pattern only apply to background jobs: add run_in_background: true, or drop them.",
    )
  }
  let pattern: RegExp | undefined
  if (options.pattern !== undefined) {
    try {
      pattern = compileCallerRegex(options.pattern, "m")
    } catch (error) {
      if (!(error instanceof CallerRegexError)) throw error
      throw new Tool.ToolFailure(
        `ready_pattern ${JSON.stringify(options.pattern)} cannot be used: ${error.message}. Fix the pattern, or wait with ready_port instead.`,
      )
    }
  }
  const timeoutMs = timeout ?? Math.min(DEFAULT_READY_TIMEOUT_MS, settings.maxTimeoutMs)
  if (timeoutMs > settings.maxTimeoutMs) {
    throw new Tool.ToolFailure(
      `ready_timeout ${timeoutMs} ms is more than the maximum of ${settings.maxTimeoutMs} ms. Use a smaller value; the job keeps running after it anyway.`,
    )
  }
  return {
    ...(port !== undefined ? { port } : {}),
    ...(pattern ? { pattern } : {}),
    timeoutMs,
  }
}

/** The configured shell, or the best one found here; a refusal that says why when none will do. */
export function pickShell(settings: ShellSettings): ShellInfo {
  try {
    return chooseShell(settings.shell === undefined ? {} : { configured: settings.shell })
  } catch (error) {
    if (error instanceof ShellChoiceError) throw new Tool.ToolFailure(error.message)
    throw error
  }
}

/** Refuses a working directory that does not exist or is not a directory (`given`: the workdir argument). */
export function checkDirectory(cwd: string, given: string | undefined): void {
  // Synchronous: one stat is cheaper than a round trip through the thread pool.
  try {
    if (statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) return
  } catch {}
  const what = given === undefined ? "The project directory" : `workdir ${JSON.stringify(given)}`
  throw new Tool.ToolFailure(
    `${what} (${cwd}) does not exist or is not a directory. Use an existing directory.`,
  )
}
