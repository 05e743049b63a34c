/** The source text of a node as it goes into a `bash` pattern: whitespace between tokens normalised. */
import type { Frame } from "./frame.ts"
import type { Node } from "./parser.ts"
import type { Findings } from "./reasons.ts"
import { normalisedText, normaliseGap } from "./words.ts"

/**
 * Text between two tokens of one command, as it goes into a pattern: blanks become one space, nothing
 * stays nothing. Anything else means the grammar dropped a token; the text is kept, and unless it is the
 * one known case (a lone `-` before a heredoc, as in `python3 - <<EOF`) the command counts as unparsed.
 */
export function gapText(frame: Frame, from: number, to: number, findings: Findings): string {
  if (to < from) return " "
  const gap = normaliseGap(frame.source.slice(from, to))
  if (gap !== "" && gap !== " " && gap.trim() !== "-") findings.fail(`the parser skipped text: ${gap.trim()}`)
  return gap
}

/** A node's text with the gaps between its children normalised (see `gapText`). */
export function patternText(node: Node, frame: Frame, findings: Findings): string {
  return normalisedText(node, (from, to) => gapText(frame, from, to, findings))
}
