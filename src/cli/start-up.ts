import type { Toolbelt } from "../toolbelt/toolbelt.ts"
import { warnCrashRecovery } from "./crash-warnings.ts"
import { type IO, UsageError } from "./io.ts"

/** Warns on stderr about each plugin that did not load: the command goes on without it. */
export function warnPluginErrors(toolbelt: Pick<Toolbelt, "pluginErrors">, io: IO): void {
  for (const failure of toolbelt.pluginErrors)
    io.stderr.write(`warning: plugin ${failure.spec} not loaded: ${failure.error}\n`)
}

/**
 * What a command that runs tools tells the person once its toolbelt is open.
 * 1. The plugins that did not load.
 * 2. What start-up rolled back after a crash.
 */
export function warnStartUp(toolbelt: Pick<Toolbelt, "pluginErrors" | "crashRecovery">, io: IO): void {
  warnPluginErrors(toolbelt, io)
  warnCrashRecovery(toolbelt, io)
}

/**
 * The agent of `--agent` must be one the policy knows, before any call runs as it. An unknown one is
 * a usage error whose message names the known agents (so no help follows it).
 */
export function checkAgent(toolbelt: Pick<Toolbelt, "permission">, agent: string): void {
  try {
    toolbelt.permission.evaluate("*", "*", agent)
  } catch (error) {
    throw new UsageError((error as Error).message, { help: false })
  }
}
