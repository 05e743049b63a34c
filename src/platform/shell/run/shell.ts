import { accessSync, constants, statSync } from "node:fs"
import { basename, delimiter, isAbsolute, join } from "node:path"

/** A shell that can run a command string with `-c`. */
export interface ShellInfo {
  /** Absolute path of the executable. */
  readonly path: string
  /** Its base name (`bash`, `zsh`, ...), which decides how the command is passed. */
  readonly name: string
}

/** POSIX-style shells that take `-c <script>` and understand `exec 2>&1`. */
export const SUITABLE_SHELLS: readonly string[] = ["bash", "zsh", "sh", "dash", "ksh", "mksh"]

/** Shells whose syntax is not POSIX: a model writing bash for them gets garbage results. */
const REFUSED: Readonly<Record<string, string>> = {
  fish: "fish does not accept POSIX shell syntax (`&&` chains, `$(…)`, `export`), which is what the model writes",
  nu: "nushell does not accept POSIX shell syntax, which is what the model writes",
}

export class ShellChoiceError extends Error {
  override readonly name = "ShellChoiceError"
}

/**
 * Picks the shell for a command.
 * 1. The configured shell (a name looked up on PATH, or a path); fish and nu are refused with the reason,
 *    and a configured shell that does not exist is an error, never silently replaced.
 * 2. Else `$SHELL` when it is one of the suitable shells and exists.
 * 3. Else `bash` from PATH, else `/bin/sh`.
 */
export function chooseShell(options: { configured?: string; env?: NodeJS.ProcessEnv } = {}): ShellInfo {
  const env = options.env ?? process.env
  const configured = options.configured?.trim()
  // Looking the shell up walks PATH on every call; the answer only changes with the inputs.
  const key = `${configured ?? ""}\0${env.SHELL ?? ""}\0${env.PATH ?? ""}`
  const known = cache.get(key)
  if (known && isExecutable(known.path)) return known
  const chosen = choose(configured, env)
  if (cache.size > 32) cache.clear()
  cache.set(key, chosen)
  return chosen
}

const cache = new Map<string, ShellInfo>()

function choose(configured: string | undefined, env: NodeJS.ProcessEnv): ShellInfo {
  if (configured) {
    const name = shellName(configured)
    const refused = REFUSED[name]
    if (refused) {
      throw new ShellChoiceError(
        `The configured shell ${JSON.stringify(configured)} cannot be used for commands: ${refused}. ` +
          `Configure one of ${SUITABLE_SHELLS.join(", ")} instead (or remove the setting to use bash).`,
      )
    }
    const path = locate(configured, env)
    if (!path) {
      throw new ShellChoiceError(
        `The configured shell ${JSON.stringify(configured)} was not found or is not executable. ` +
          "Set it to an installed shell (a name on PATH or an absolute path), or remove the setting to use bash.",
      )
    }
    return { path, name }
  }
  const fromEnv = env.SHELL
  if (fromEnv && SUITABLE_SHELLS.includes(shellName(fromEnv))) {
    const path = locate(fromEnv, env)
    if (path) return { path, name: shellName(fromEnv) }
  }
  const bash = locate("bash", env)
  if (bash) return { path: bash, name: "bash" }
  return { path: "/bin/sh", name: "sh" }
}

function shellName(path: string): string {
  return basename(path)
    .replace(/\.exe$/i, "")
    .toLowerCase()
}

/** The executable's absolute path: a path is checked as is, a bare name is looked up on PATH. */
function locate(command: string, env: NodeJS.ProcessEnv): string | undefined {
  if (command.includes("/")) return isExecutable(command) && isAbsolute(command) ? command : undefined
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, command)
    if (isExecutable(candidate)) return candidate
  }
  return undefined
}

function isExecutable(path: string): boolean {
  try {
    // No exception for the common miss: PATH has many directories without the shell in them.
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
