import { homedir } from "node:os"
import { exactPattern } from "../../platform/shell/parse/always.ts"
import {
  directoryPattern,
  type Scan,
  scanCommand,
  type UncheckedPattern,
} from "../../platform/shell/parse/scan.ts"
import type { Unchecked } from "../../runtime/tool/context.ts"
import type * as Tool from "../../runtime/tool/index.ts"
import type { ShellSettings } from "../kit/shell-settings.ts"
import { clip } from "./clip.ts"

/**
 * Step 3 of a `bash` call: one `external_directory` ask for the directories outside the project (the
 * workdir was asked for already when `askedForWorkdir`), then one `bash` ask for every command found.
 * When the scan failed or could not see through part of the command, the whole command text is a
 * pattern too, so only a rule that covers the whole command (or an answer from a person) lets it run.
 * The ask's `always` is the scan's (`always.ts`: a command whose arguments carry the risk is saved
 * exactly as written), which is what the person is shown will be saved.
 */
export async function askPermission(options: {
  ctx: Tool.Context
  command: string
  description: string
  cwd: string
  settings: ShellSettings
  askedForWorkdir: boolean
}): Promise<void> {
  const { ctx, command, description, cwd, settings, askedForWorkdir } = options
  let scan: Scan | undefined
  try {
    scan = await scanCommand(command, {
      cwd,
      directory: settings.directory,
      ...(settings.worktree ? { worktree: settings.worktree } : {}),
      home: homedir(),
    })
  } catch {
    scan = undefined
  }
  const directories = (scan?.externalDirectories ?? []).filter((dir) => !(askedForWorkdir && dir === cwd))
  if (directories.length) {
    const patterns = directories.map(directoryPattern)
    await ctx.ask({
      permission: "external_directory",
      patterns,
      always: patterns,
      metadata: { command, directories, patterns },
    })
  }
  const sure = scan?.parsed === true && !scan.reasons?.length
  const patterns = scan ? [...scan.patterns] : []
  const always = scan ? [...scan.always] : []
  if (!sure && !patterns.includes(command)) {
    patterns.unshift(command)
    // Saved only as itself: a `*` or `?` in it would be a wildcard and match other commands.
    const exact = exactPattern(command)
    if (exact !== undefined) always.unshift(exact)
  }
  if (patterns.length === 0) return
  const unchecked = scan?.unchecked?.length ? uncheckedAsk(scan.unchecked) : undefined
  await ctx.ask({
    permission: "bash",
    patterns,
    always,
    metadata: {
      command,
      ...(description ? { description } : {}),
      patterns,
      ...(unchecked ? { unchecked } : {}),
      ...(scan === undefined ? { reasons: ["the command could not be scanned"] } : {}),
      ...(scan && !scan.parsed
        ? { reasons: ["the command could not be parsed", ...(scan.reasons ?? [])] }
        : {}),
      ...(scan?.parsed && scan.reasons?.length ? { reasons: scan.reasons } : {}),
    },
  })
}

/**
 * The ask's `unchecked` metadata (see permission/unchecked.ts): the patterns whose commands the rules
 * cannot check, why, and what to do, which is what a refusal says when no one can be asked.
 */
function uncheckedAsk(entries: readonly UncheckedPattern[]): Unchecked {
  return {
    patterns: entries.map((entry) => entry.pattern),
    reason: entries
      .map((entry) => `The rules cannot check \`${clip(entry.pattern, 200)}\`: ${entry.reason}.`)
      .join(" "),
    advice:
      "Write each command literally, with the program it runs as its first word (`rm x`, not `$(echo rm) x`, `$CMD x`, " +
      '`eval "$x"` or `sh -c "$x"`), and run the commands of a script or a download directly rather than through ' +
      "`source` or a pipe into a shell, so the rules can check them.",
  }
}
