// What the MCP server tells the client at `initialize`: the project, what of it was left out, which
// configured MCP servers are not running, and which tool files did not load.
import { toolFilesNotOffered } from "../../adapters/plugins/custom-tools.ts"
import type { Toolbelt } from "../../compose/toolbelt.ts"

/**
 * The server's `instructions`.
 * 1. The project and what the tools do.
 * 2. When the project is not trusted and brings something (tool files, plugins, MCP servers, rules that
 *    loosen): one short paragraph saying what was left out and the command a person runs to trust it,
 *    so the agent can tell the person why a tool the project defines is missing, instead of guessing.
 * 3. When a configured MCP server is not running (it did not start, or stopped): one paragraph naming
 *    each with its reason, for the same purpose.
 * 4. When a tool file did not load: its tools with the reason `toolbelt tools` gives under "Not offered".
 */
export function serverInstructions(
  toolbelt: Pick<Toolbelt, "directory" | "trust" | "mcp"> &
    Partial<Pick<Toolbelt, "pluginErrors" | "worktree">>,
): string {
  const about = `Coding tools for the project at ${toolbelt.directory} (read, edit, search, run commands), behind its permission policy.`
  const failedFiles = toolFilesNotOffered(
    toolbelt.pluginErrors ?? [],
    toolbelt.worktree ?? toolbelt.directory,
  )
  return [
    about,
    leftOutParagraph(toolbelt.trust),
    notRunningParagraph(toolbelt.mcp),
    notLoadedParagraph(failedFiles),
  ]
    .filter(Boolean)
    .join("\n\n")
}

/** The tools of tool files that did not load, each with the reason. */
function notLoadedParagraph(tools: readonly { name: string; reason: string }[]): string {
  if (tools.length === 0) return ""
  const named = tools.map(({ name, reason }) => `"${name}" (${cut(reason, 300)})`)
  return (
    `These tools are not offered because their tool files did not load: ${named.join("; ")}. ` +
    "If the user expects them, tell them why; they fix the file and restart this MCP server."
  )
}

/** The MCP servers from config that are not running, so their tools are missing, each with why. */
function notRunningParagraph(mcp: Toolbelt["mcp"]): string {
  const failed = (mcp?.servers ?? []).filter((server) => server.status === "failed")
  if (failed.length === 0) return ""
  // A reason can end with a server's stderr: a line's worth says enough here.
  const named = failed.map(({ name, error }) => `"${name}" (${cut(error ?? "it failed", 300)})`)
  return (
    `These MCP servers in the toolbelt config are not running, so their tools are not offered: ${named.join("; ")}. ` +
    'If the user expects their tools, tell them why; they fix the server\'s entry under "mcp" in toolbelt.json and restart this MCP server.'
  )
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** What an untrusted project brought that was left out, and the command that trusts it. */
function leftOutParagraph(trust: Toolbelt["trust"]): string {
  if (trust.leftOut.length === 0) return ""
  const why =
    trust.reason === "changed"
      ? "was trusted, but what it would run has changed since, so it is not trusted now"
      : "is not trusted"
  const shown = trust.leftOut.slice(0, 5).map((item) => item.detail)
  const more = trust.leftOut.length - shown.length
  return (
    `This project ${why}: what it brings is not loaded or applied (${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}). ` +
    `Only the built-in tools are offered, under the user's rules. If the user wants the project's own tools, ` +
    `they can review them and run \`${trust.howToTrust}\` in a terminal, then restart this MCP server; do not run that command for them.`
  )
}
