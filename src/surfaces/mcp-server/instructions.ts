// What the MCP server tells the client at `initialize`: the project, and what of it was left out.
import type { Toolbelt } from "../../compose/toolbelt.ts"

/**
 * The server's `instructions`.
 * 1. The project and what the tools do.
 * 2. When the project is not trusted and brings something (tool files, plugins, MCP servers, rules that
 *    loosen): one short paragraph saying what was left out and the command a person runs to trust it,
 *    so the agent can tell the person why a tool the project defines is missing, instead of guessing.
 */
export function serverInstructions(toolbelt: Pick<Toolbelt, "directory" | "trust">): string {
  const about = `Coding tools for the project at ${toolbelt.directory} (read, edit, search, run commands), behind its permission policy.`
  const { trust } = toolbelt
  if (trust.leftOut.length === 0) return about
  const why =
    trust.reason === "changed"
      ? "was trusted, but what it would run has changed since, so it is not trusted now"
      : "is not trusted"
  const shown = trust.leftOut.slice(0, 5).map((item) => item.detail)
  const more = trust.leftOut.length - shown.length
  return (
    `${about}\n\n` +
    `This project ${why}: what it brings is not loaded or applied (${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}). ` +
    `Only the built-in tools are offered, under the user's rules. If the user wants the project's own tools, ` +
    `they can review them and run \`${trust.howToTrust}\` in a terminal, then restart this MCP server; do not run that command for them.`
  )
}
