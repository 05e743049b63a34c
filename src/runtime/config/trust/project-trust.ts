// Whether what a project contributes is applied in this run: workspace trust, pinned to a fingerprint.

import { type Config, type ConfigLayers, combineLayers, loadConfigLayers } from "../config.ts"
import { type Contribution, findContributions, UNTRUSTED_KEYS } from "./contributions.ts"
import { fingerprintFiles } from "./fingerprint.ts"
import { TrustStore } from "./trust-store.ts"

export type { Contribution } from "./contributions.ts"
export { UNTRUSTED_KEYS } from "./contributions.ts"

export interface ProjectTrust {
  /** The project's real path (the store's key). */
  readonly directory: string
  /** Whether what the project contributes is applied in this run. */
  readonly trusted: boolean
  /**
   * Why: "not-needed" (the project contributes nothing that runs or loosens), "store" (trusted with this
   * fingerprint), "changed" (trusted once, but what it would run changed since: untrusted now), "option"
   * (createToolbelt({trust:true}) / --trust), "env" (TOOLBELT_TRUST=1), "untrusted".
   */
  readonly reason: "not-needed" | "store" | "changed" | "option" | "env" | "untrusted"
  /** Everything the project would run or loosen (empty: no trust step needed). */
  readonly contributions: readonly Contribution[]
  /** sha256 over the files behind the contributions (paths and contents). */
  readonly fingerprint: string
  /** The contributions not applied in this run (all of them when untrusted, none when trusted). */
  readonly leftOut: readonly Contribution[]
  /** The command that trusts it: `toolbelt trust /real/path`. */
  readonly howToTrust: string
  /** Why the trust store could not be used, when it could not (every project is then untrusted). */
  readonly problem?: string
}

/**
 * Assesses a project's trust. Reads files only: nothing of the project is run, imported or contacted.
 * 1. What the project contributes (`findContributions`) and the fingerprint of the files behind it.
 * 2. Trusted for this run by the caller (`trust: true`: reason "option") or by `TOOLBELT_TRUST=1` ("env").
 * 3. Trusted in the store with the same fingerprint: "store".
 * 4. Contributing nothing: "not-needed", trusted.
 * 5. Trusted in the store with another fingerprint: "changed", untrusted until trusted again.
 * 6. Otherwise "untrusted".
 */
export async function assessProjectTrust(options: {
  /** The project's real path. */
  readonly directory: string
  readonly worktree: string
  readonly env: NodeJS.ProcessEnv
  /** The per-user store (default: the one `env` names). */
  readonly store?: TrustStore
  /** The caller trusts the project for this run. */
  readonly trust?: boolean
  /** The config layers when already read (default: read them). */
  readonly layers?: ConfigLayers
}): Promise<ProjectTrust> {
  const { directory, worktree, env } = options
  // 1. Contributions.
  const layers = options.layers ?? (await loadConfigLayers(directory, env))
  const { contributions, files } = await findContributions({ directory, worktree, layers })
  const fingerprint = await fingerprintFiles(files)
  const store = options.store ?? new TrustStore({ env })
  const problem = store.problem
  const entry = problem ? undefined : store.get(directory)
  const reason: ProjectTrust["reason"] =
    options.trust === true
      ? "option" // 2.
      : env.TOOLBELT_TRUST === "1"
        ? "env"
        : entry?.fingerprint === fingerprint
          ? "store" // 3.
          : contributions.length === 0
            ? "not-needed" // 4.
            : entry
              ? "changed" // 5.
              : "untrusted" // 6.
  const trusted = reason !== "changed" && reason !== "untrusted"
  return {
    directory,
    trusted,
    reason,
    contributions,
    fingerprint,
    leftOut: trusted ? [] : contributions,
    howToTrust: `toolbelt trust ${shellWord(directory)}`,
    ...(problem ? { problem } : {}),
  }
}

/**
 * Whether the project's own installed programs (`node_modules/.bin`, its TypeScript) may be run: only
 * when a person trusted the project (store, option, env). A project that needs no trust step for its
 * config has not been looked at by anyone, and a repository can ship a fake server binary.
 */
export function runsProjectPrograms(trust: Pick<ProjectTrust, "trusted" | "reason">): boolean {
  return trust.trusted && trust.reason !== "not-needed"
}

/**
 * The config in effect: the user's layer with the project's over it, all of the project's when it is
 * trusted, else only the keys that cannot run, contact or loosen (`UNTRUSTED_KEYS`; the policy applies
 * the project's rules tighten-only).
 */
export function configFor(
  layers: Pick<ConfigLayers, "user" | "project">,
  trust: Pick<ProjectTrust, "trusted">,
): Config {
  if (trust.trusted) return combineLayers(layers.user, layers.project)
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(layers.project)) if (UNTRUSTED_KEYS.has(key)) kept[key] = value
  return combineLayers(layers.user, kept)
}

function shellWord(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`
}
