import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { warnCrashRecovery } from "./crash-warnings.ts"
import { type IO, UsageError } from "./io.ts"
import { projectDirectory } from "./project-dir.ts"
import { commandDecide } from "./prompt.ts"
import { commandAnswer } from "./question-prompt.ts"

/**
 * The toolbelt of a command that runs tool calls for the person at the terminal (`call`, `run`).
 * 1. The project directory from `--cwd` (a usage error when it is not one).
 * 2. Asks are approved by `--yes`, else put to the terminal, else rejected saying how to allow them.
 *    Questions tools ask go to the terminal; without one nobody can answer them.
 * 3. No sweep of the output store: a short-lived command leaves that to long-running servers.
 */
export function openForCalls(options: {
  io: IO
  /** The command's name, for the messages of rejected asks. */
  command: string
  cwd: string | undefined
  yes: boolean | undefined
  /** Edits wait for language servers' diagnostics (`call` turns it on with `--diagnostics`). */
  editDiagnostics?: boolean
}): Promise<Toolbelt> {
  const { io, command, cwd, yes } = options
  return createToolbelt({
    directory: projectDirectory(cwd, io.cwd),
    decide: commandDecide(io, command, yes),
    answer: commandAnswer(io, command),
    sweep: false,
    editDiagnostics: options.editDiagnostics ?? true,
  })
}

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
    toolbelt.permission.evaluate({ permission: "*", pattern: "*", agent })
  } catch (error) {
    throw new UsageError((error as Error).message, { help: false })
  }
}
