// Which tools are deferred (registered and callable, not listed up front), and why. Pure.

import { thousands } from "../../platform/text/thousands.ts"

/** `auto`: defer past the budget or the tool limit; `on`: always; `off`: never. */
export type ToolSearchMode = "auto" | "on" | "off"

/** Tokens of definitions offered up front before `auto` defers (10% of a 200k window). */
export const DEFAULT_BUDGET = 20_000

/** More tools than this in one request are refused by OpenAI's API and VS Code. */
export const MAX_LISTED_TOOLS = 128

/** The tool sources whose tools may be deferred; built-ins never are. */
const DEFERRABLE = /^(mcp|plugin|custom):/

export function isDeferrable(source: string): boolean {
  return DEFERRABLE.test(source)
}

/** One tool that would be offered: its name, where it comes from, and (auto mode) its size. */
export interface Candidate {
  readonly name: string
  readonly source: string
  readonly tokens?: number | undefined
}

export interface Deferral {
  /** The names left out of the listing (all deferrable tools, or none). */
  readonly deferred: ReadonlySet<string>
  /** Tokens of all the definitions that would be offered without deferral (0 when not counted). */
  readonly totalTokens: number
  /** One sentence for a person: why these are (or are not) deferred. */
  readonly reason: string
}

/**
 * Decides the deferral for one listing.
 * 1. No deferrable tool, or mode `off`: nothing is deferred.
 * 2. Mode `on`: every deferrable tool is.
 * 3. Mode `auto`: every deferrable tool is when the definitions would pass `budget` tokens, or when
 *    more than 128 tools would be offered; otherwise none.
 * Counts matter only in step 3 (`needsCounts` says when a caller must count before deciding).
 */
export function decideDeferral(
  candidates: readonly Candidate[],
  settings: { readonly mode: ToolSearchMode; readonly budget: number },
): Deferral {
  const deferrable = candidates.filter((tool) => isDeferrable(tool.source))
  const totalTokens = candidates.reduce((sum, tool) => sum + (tool.tokens ?? 0), 0)
  const none = (reason: string): Deferral => ({ deferred: new Set(), totalTokens, reason })
  const all = (reason: string): Deferral => ({
    deferred: new Set(deferrable.map((tool) => tool.name)),
    totalTokens,
    reason,
  })
  if (deferrable.length === 0) return none("no tool comes from an MCP server, plugin or tool file")
  if (settings.mode === "off") return none('tool_search is "off"')
  if (settings.mode === "on")
    return all('tool_search is "on": tools from MCP servers, plugins and tool files are always deferred')
  if (candidates.length > MAX_LISTED_TOOLS)
    return all(
      `${candidates.length} tools would be offered, more than the ${MAX_LISTED_TOOLS} many clients accept`,
    )
  const take = `the definitions that would be offered take ${n(totalTokens)} tokens`
  if (totalTokens > settings.budget) return all(`${take}, over the budget of ${n(settings.budget)}`)
  return none(`${take}, within the budget of ${n(settings.budget)}`)
}

const n = thousands

/** Whether deciding needs token counts: only `auto` with something deferrable and at most 128 tools. */
export function needsCounts(candidates: readonly Pick<Candidate, "source">[], mode: ToolSearchMode): boolean {
  return (
    mode === "auto" &&
    candidates.length <= MAX_LISTED_TOOLS &&
    candidates.some((tool) => isDeferrable(tool.source))
  )
}
