// The one line tool_search shows per match: what a tool does, short enough to scan.
import { splitLead } from "./fields.ts"

const MAX = 120

/** The first sentence of a description, whitespace collapsed, at most 120 characters ("(no description)" when empty). */
export function summaryOf(description: string): string {
  const lead = splitLead(description.slice(0, 4_000)).lead.replace(/\s+/g, " ").trim()
  if (lead === "") return "(no description)"
  const chars = [...lead]
  if (chars.length <= MAX) return lead
  // Cut at a word boundary when one is near, and say that it was cut.
  const cut = chars.slice(0, MAX - 1).join("")
  const space = cut.lastIndexOf(" ")
  return `${space > MAX * 0.6 ? cut.slice(0, space) : cut}…`
}
