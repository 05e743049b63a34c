// Whether a command applies what the project contributes: `--trust`, `TOOLBELT_TRUST=1`, the store, or
// the person's answer at the terminal; and what the command says about it once the project is open.
import { realpathSync } from "node:fs"
import { findWorktree } from "../../compose/worktree.ts"
import { assessProjectTrust, type ProjectTrust } from "../../runtime/config/trust/project-trust.ts"
import { TrustStore, TrustStoreError } from "../../runtime/config/trust/trust-store.ts"
import { type IO, isTerminal } from "./io.ts"
import { leftOutWarning, trustedForRunWarning } from "./trust-text.ts"

/** What a command decided before opening the project. */
export interface TrustChoice {
  /** The `trust` option of `createToolbelt`: true applies the project for this run only. */
  readonly trust: boolean | undefined
  /** The person answered the prompt (so no warning repeats what they chose). */
  readonly asked: boolean
}

/**
 * Decides, before the project is opened, whether this run applies what it contributes.
 * 1. `--trust`: yes, for this run (said on stderr once the project is open, naming what runs).
 * 2. Where a person can answer (`ask`, and stdin and stderr are terminals): read what the project
 *    contributes (reading files only, running nothing); if it is not trusted (never, or its
 *    fingerprint changed), ask. "Trust and remember" saves the project with the fingerprint shown,
 *    and the store then trusts it; "once" trusts this run only; "no" (the default) leaves it out.
 *    Ctrl+C or Ctrl+D throws `Interrupted` (exit 130).
 * 3. Otherwise the store and `TOOLBELT_TRUST=1` decide when the project opens; nobody is asked.
 */
export async function chooseTrust(options: {
  io: IO
  directory: string
  /** `--trust` was given. */
  flag: boolean | undefined
  /** The command prompts on a terminal (call, run, tools); servers never do. */
  ask: boolean
}): Promise<TrustChoice> {
  const { io, flag } = options
  // 1. --trust.
  if (flag) return { trust: true, asked: false }
  // 2. The prompt.
  const terminal = options.ask && isTerminal(io, "stderr") && isTerminal(io, "stdin")
  if (!terminal) return { trust: undefined, asked: false }
  const directory = realpathSync(options.directory)
  const store = new TrustStore({ env: io.env })
  const assessed = await assessProjectTrust({
    directory,
    worktree: findWorktree(directory),
    env: io.env,
    store,
  })
  if (assessed.reason !== "untrusted" && assessed.reason !== "changed")
    return { trust: undefined, asked: false }
  // Loaded only when a person is asked: the terminal prompt's readline is not paid by every start.
  const { promptForTrust } = await import("./trust-prompt.ts")
  const answer = await promptForTrust(io, assessed)
  if (answer === "remember") {
    try {
      store.trust(assessed.directory, assessed.fingerprint)
    } catch (error) {
      // The person said yes: this run goes ahead trusted, and they learn why it was not remembered.
      if (!(error instanceof TrustStoreError)) throw error
      io.stderr.write(`${error.message}\nTrusting ${assessed.directory} for this run only.\n`)
      return { trust: true, asked: true }
    }
    io.stderr.write(
      `Trusted ${assessed.directory} (revoke with: toolbelt trust --revoke ${assessed.directory}).\n`,
    )
    return { trust: undefined, asked: true }
  }
  // 3. Once, or not at all.
  return { trust: answer === "once" ? true : undefined, asked: true }
}

/**
 * What a command says on stderr about trust once the project is open.
 * 1. Trusted for this run by `--trust` or `TOOLBELT_TRUST=1` (not by the person's answer): one loud
 *    line naming the project and what runs because of it.
 * 2. With `leftOut` (servers and agent turns, which run on their own): one line naming what was left
 *    out and the command that trusts the project.
 * 3. A trust store that cannot be read (every project is untrusted until it can): why, and what to do.
 */
export function sayTrust(
  trust: ProjectTrust,
  io: IO,
  options: { command: string; choice?: TrustChoice; leftOut?: boolean },
): void {
  const warning = options.choice?.asked ? undefined : trustedForRunWarning(trust, options.command)
  if (warning) io.stderr.write(warning)
  const note = options.leftOut ? leftOutWarning(trust, options.command) : undefined
  if (note) io.stderr.write(note)
  if (trust.problem) io.stderr.write(`toolbelt ${options.command}: ${trust.problem}\n`)
}
