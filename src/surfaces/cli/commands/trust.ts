import { existsSync, realpathSync } from "node:fs"
import { resolve } from "node:path"
import { findWorktree } from "../../../compose/worktree.ts"
import { assessProjectTrust } from "../../../runtime/config/trust/project-trust.ts"
import { TrustStore } from "../../../runtime/config/trust/trust-store.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, type IO, UsageError, writeJson } from "../io.ts"
import { projectDirectory } from "../project-dir.ts"
import { contributionLines } from "../trust-text.ts"

export const TRUST_HELP = `Usage: toolbelt trust [DIR] [options]
       toolbelt trust --list
       toolbelt trust --revoke [DIR]

Until you trust a project, toolbelt runs nothing it brings: no tool files (.toolbelt/tools/,
.opencode/tool(s)/), plugins, MCP servers (local commands or remote URLs), language-server commands or
binaries from its node_modules/.bin, and its config may only tighten the permission rules. The built-in
tools work either way. A project that brings none of these needs no trust step.

"toolbelt trust DIR" shows what the project would run or loosen, each with the file it is written in,
then remembers the project (by its real path) with a fingerprint of those files: when they change (a
git pull), the project is untrusted again until you trust it again.

Options:
  DIR            the project (default: --cwd, else the current directory)
  --cwd DIR      the project directory, when DIR is not given
  --list         the trusted projects, when each was trusted, and whether its files changed since
  --revoke       forget the project: nothing it brings runs until it is trusted again
  --json         print one JSON object
  -h, --help     show this help

Trusted projects are kept per user in $XDG_CONFIG_HOME/toolbelt/trusted-projects.json (else
~/.config/toolbelt/). For one run only, without remembering: --trust or TOOLBELT_TRUST=1 on any command.
`

/** The command line `trust` takes. */
const TRUST_LINE = {
  help: TRUST_HELP,
  shared: ["cwd", "json"],
  flags: { list: { type: "boolean" }, revoke: { type: "boolean" } },
} as const

export const command: Command = { run: trustCommand, help: TRUST_HELP }

/**
 * `toolbelt trust`.
 * 1. Check the command line: one directory at most; --list and --revoke alone.
 * 2. `--list`: each trusted project, checked against what it would run now.
 * 3. `--revoke`: forget the project.
 * 4. Otherwise: show what the project contributes, then remember it with its fingerprint.
 */
export async function trustCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...TRUST_LINE })
  if (!line) return EXIT.ok
  const { values, positionals } = line

  // 1. The command line.
  if (positionals.length > 1)
    throw new UsageError(
      `Unexpected arguments: ${positionals.slice(1).join(" ")}. Pass one project directory.`,
    )
  if (values.list && values.revoke) throw new UsageError("--list and --revoke go alone: pass one of them.")
  if (positionals.length && values.cwd !== undefined)
    throw new UsageError("Pass the project as DIR or as --cwd, not both.")
  if (values.list && (positionals.length || values.cwd !== undefined))
    throw new UsageError("--list lists every trusted project: it takes no directory.")
  const store = new TrustStore({ env: io.env })
  // A store that cannot be read trusts nothing; listing it as empty, or writing over it, would hide that.
  if (store.problem) {
    if (values.json) writeJson(io.stdout, { status: "error", error: store.problem })
    io.stderr.write(`toolbelt trust: ${store.problem}\n`)
    return EXIT.failed
  }

  // 2. --list.
  if (values.list) return list(store, io, values.json ?? false)

  // 3. --revoke: a project that was deleted or moved can still be forgotten, by the path it had.
  if (values.revoke) {
    const given = positionals[0] ?? values.cwd
    const path = resolve(io.cwd, given ?? ".")
    const directory = existsSync(path) ? realpathSync(path) : path
    const revoked = store.revoke(directory)
    if (values.json) writeJson(io.stdout, { directory, revoked })
    if (!revoked) {
      io.stderr.write(
        `toolbelt trust: ${directory} was not trusted: nothing to revoke. See the trusted projects with: toolbelt trust --list\n`,
      )
      return EXIT.failed
    }
    if (!values.json) io.stdout.write(`Revoked: nothing ${directory} brings runs until you trust it again.\n`)
    return EXIT.ok
  }

  // 4. Trust.
  const directory = realpathSync(projectDirectory(positionals[0] ?? values.cwd, io.cwd))
  const assessed = await assessProjectTrust({
    directory,
    worktree: findWorktree(directory),
    env: withoutTrustVariable(io.env),
    store,
  })
  store.trust(assessed.directory, assessed.fingerprint)
  if (values.json) {
    writeJson(io.stdout, {
      directory: assessed.directory,
      trusted: true,
      fingerprint: assessed.fingerprint,
      contributions: assessed.contributions,
    })
    return EXIT.ok
  }
  if (assessed.contributions.length === 0) {
    io.stdout.write(
      `${assessed.directory} brings nothing that runs or loosens the rules: it needs no trust. Remembered as trusted; if it starts bringing something, you will be asked again.\n`,
    )
    return EXIT.ok
  }
  io.stdout.write(
    `Trusted ${assessed.directory}. From now on toolbelt applies what it brings:\n` +
      contributionLines(assessed.contributions, assessed.directory)
        .map((text) => `  ${text}\n`)
        .join("") +
      `When any of these files change, it is untrusted again until you trust it again. Revoke with: toolbelt trust --revoke ${assessed.directory}\n`,
  )
  return EXIT.ok
}

/** The trusted projects, each checked against what it would run now. */
async function list(store: TrustStore, io: IO, json: boolean): Promise<number> {
  const env = withoutTrustVariable(io.env)
  const projects = await Promise.all(
    store.list().map(async (entry) => {
      if (!existsSync(entry.directory)) return { ...entry, state: "missing" as const }
      const now = await assessProjectTrust({
        directory: entry.directory,
        worktree: findWorktree(entry.directory),
        env,
        store,
      })
      return {
        ...entry,
        state: now.fingerprint === entry.fingerprint ? ("unchanged" as const) : ("changed" as const),
      }
    }),
  )
  if (json) {
    writeJson(io.stdout, { projects })
    return EXIT.ok
  }
  if (projects.length === 0) {
    io.stdout.write("No trusted projects. Trust one with: toolbelt trust DIR\n")
    return EXIT.ok
  }
  for (const project of projects) {
    const state =
      project.state === "unchanged"
        ? "unchanged"
        : project.state === "changed"
          ? `changed since trusted: not trusted until you run toolbelt trust ${project.directory}`
          : "the directory is gone"
    io.stdout.write(`${project.directory}  trusted ${new Date(project.time).toISOString()}  ${state}\n`)
  }
  return EXIT.ok
}

/** The environment with `TOOLBELT_TRUST` unset: the store's answer, not this run's, is what is shown. */
function withoutTrustVariable(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { TOOLBELT_TRUST: _, ...rest } = env
  return rest
}
