// How the command line words a project's trust: what it contributes, what was left out, how to trust it.
import { basename, extname, relative, sep } from "node:path"
import type { Contribution, ProjectTrust } from "../../runtime/config/trust/project-trust.ts"

/** A contribution's file as a person reads it: relative to the project when inside it, else absolute. */
export function shownFile(file: string, directory: string): string {
  const path = relative(directory, file)
  return path && !path.startsWith(`..${sep}`) && path !== ".." ? path : file
}

/** One line per contribution: what it would do, then the file it is written in (unless it names it). */
export function contributionLines(contributions: readonly Contribution[], directory: string): string[] {
  return contributions.map((item) =>
    item.detail.includes(basename(item.file))
      ? item.detail
      : `${item.detail}  (${shownFile(item.file, directory)})`,
  )
}

/**
 * The one line a run that trusts the project by `--trust` or `TOOLBELT_TRUST=1` says on stderr, or
 * undefined when nothing is applied because of it (the project was trusted anyway, or contributes
 * nothing that runs or loosens).
 */
export function trustedForRunWarning(trust: ProjectTrust, command: string): string | undefined {
  if (trust.reason !== "option" && trust.reason !== "env") return undefined
  if (trust.contributions.length === 0) return undefined
  const by = trust.reason === "env" ? "TOOLBELT_TRUST=1" : "--trust"
  const what = contributionLines(trust.contributions, trust.directory).join("; ")
  return `toolbelt ${command}: WARNING: ${trust.directory} is trusted for this run only (${by}), without asking; applied from it: ${what}.\n`
}

/**
 * What a command that serves or runs the project says on stderr when the project's contributions
 * were left out: how many, and the command that trusts it. Undefined when nothing was left out.
 */
export function leftOutWarning(trust: ProjectTrust, command: string): string | undefined {
  if (trust.leftOut.length === 0) return undefined
  const what = contributionLines(trust.leftOut, trust.directory).join("; ")
  const changed = trust.reason === "changed" ? " (trusted before, but what it would run changed since)" : ""
  return `toolbelt ${command}: ${trust.directory} is not trusted${changed}, so this was left out: ${what}. To apply it, review it and run: ${trust.howToTrust}\n`
}

/**
 * The "Not run until you trust this project" section of `toolbelt tools`: each contribution left out
 * with its file, and the command that trusts the project. Empty when nothing was left out.
 */
export function leftOutSection(trust: ProjectTrust): string {
  if (trust.leftOut.length === 0) return ""
  const changed =
    trust.reason === "changed" ? "  (trusted before, but what it would run has changed since)\n" : ""
  return (
    `\nNot run until you trust this project:\n${changed}` +
    contributionLines(trust.leftOut, trust.directory)
      .map((line) => `  ${line}\n`)
      .join("") +
    `Review them, then run: ${trust.howToTrust}\n`
  )
}

/**
 * Why a tool name is unknown when the project is not trusted: the tool file that would define it (a
 * file `name.ts` defines `name`, and `name_<export>` for its named exports), or else the project's
 * other contributions that might. Undefined when nothing was left out.
 */
export function unknownToolReason(trust: ProjectTrust, name: string): string | undefined {
  if (trust.leftOut.length === 0) return undefined
  const file = trust.leftOut.find((item) => item.kind === "tool-file" && definesTool(item.file, name))
  if (file)
    return `"${name}" comes from the tool file ${file.file}, which is not loaded because ${trust.directory} is not trusted. Review the file, then run: ${trust.howToTrust} (or pass --trust for this run only).`
  const sources = trust.leftOut.filter((item) => item.kind !== "config-key" && item.kind !== "permission")
  if (sources.length === 0) return undefined
  return `${trust.directory} is not trusted, so the tools it would add were not loaded (${sources
    .map((item) => `${item.detail} in ${shownFile(item.file, trust.directory)}`)
    .join(
      "; ",
    )}). If "${name}" is one of them, review them, then run: ${trust.howToTrust} (or pass --trust for this run only).`
}

/** Whether a tool file would define the tool `name` (its default export, or `<file>_<export>`). */
function definesTool(file: string, name: string): boolean {
  const base = basename(file, extname(file))
  return name === base || name.startsWith(`${base}_`)
}
