import { internals, type ToolbeltInternals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { warnCrashRecovery } from "./crash-warnings.ts"
import { type IO, UsageError } from "./io.ts"
import { projectDirectory } from "./project-dir.ts"
import { commandDecide } from "./prompt.ts"
import { commandAnswer } from "./question-prompt.ts"
import type { CommandStop } from "./stop-signal.ts"
import { storeOption } from "./store-flag.ts"
import { chooseTrust, sayTrust } from "./trust-gate.ts"

/**
 * The toolbelt of a command that runs tool calls for the person at the terminal (`call`, `run`).
 * 1. The project directory from `--cwd` (a usage error when it is not one); `--store` checked.
 * 2. Whether what the project brings applies (`chooseTrust`: `--trust`, else the person at a terminal
 *    when the project is not trusted, else the store and `TOOLBELT_TRUST`).
 * 3. Asks are approved by `--yes`, else put to the terminal, else rejected saying what would lift them
 *    (the rule that asked and its file).
 *    Questions tools ask go to the terminal; without one nobody can answer them. Ctrl+C at either
 *    prompt is `stop`'s, as SIGINT is.
 * 4. No sweep of the output store: a short-lived command leaves that to long-running servers.
 * 5. Say on stderr what runs because of `--trust`, and (with `leftOut`) what was left out.
 */
export async function openForCalls(options: {
  io: IO
  /** The command's name, for the messages of rejected asks. */
  command: string
  cwd: string | undefined
  yes: boolean | undefined
  /** `--trust`: apply what the project brings for this run. */
  trust: boolean | undefined
  /** `--store`: the PostgreSQL URL of the records (else `TOOLBELT_STORE`, config, the data dir's file). */
  store: string | undefined
  /** Say on stderr what an untrusted project's run leaves out (`run`: the model will not see it). */
  leftOut?: boolean
  /** Edits wait for language servers' diagnostics (`call` turns it on with `--diagnostics`). */
  editDiagnostics?: boolean
  /** How the command is stopped: Ctrl+C at a permission or question prompt stops it too. */
  stop: CommandStop
}): Promise<Toolbelt> {
  const { io, command, cwd, yes, stop } = options
  const store = storeOption(options.store)
  const directory = projectDirectory(cwd, io.cwd)
  const choice = await chooseTrust({ io, directory, flag: options.trust, ask: true })
  // An ask refused for want of a terminal names the rule that asked: the policy, once it is open.
  let policy: ToolbeltInternals["policy"] | undefined
  const toolbelt = await createToolbelt({
    directory,
    env: io.env,
    ...store,
    ...(choice.trust ? { trust: true } : {}),
    decide: commandDecide(io, command, yes, stop, () => policy),
    answer: commandAnswer(io, command, stop),
    sweep: false,
    editDiagnostics: options.editDiagnostics ?? true,
  })
  policy = internals(toolbelt).policy
  sayTrust(toolbelt.trust, io, { command, choice, leftOut: options.leftOut ?? false })
  return toolbelt
}

/**
 * Warns on stderr about each plugin, tool file, skill or agent file that did not load, named by its
 * kind (what the person looks for to fix it): the command goes on without it.
 */
export function warnPluginErrors(toolbelt: Pick<Toolbelt, "pluginErrors">, io: IO): void {
  for (const failure of toolbelt.pluginErrors)
    io.stderr.write(`warning: ${failure.kind ?? "plugin"} ${failure.spec} not loaded: ${failure.error}\n`)
}

/**
 * What a command that runs tools tells the person once its toolbelt is open.
 * 1. The plugins, tool files, skills and agent files that did not load.
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
export function checkAgent(toolbelt: Toolbelt, agent: string): void {
  try {
    internals(toolbelt).permission.evaluate({ permission: "*", pattern: "*", agent })
  } catch (error) {
    throw new UsageError((error as Error).message, { help: false })
  }
}
