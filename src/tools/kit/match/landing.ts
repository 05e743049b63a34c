// Where a replacement lands in the file: at the indentation of the lines it replaces (base-indent.ts),
// for a span matched as written and after the line-aligned path. Split from replace.ts, which decides
// which span is replaced and what newString becomes; this decides only its indentation.

import { landAligned, landAtBase } from "./base-indent.ts"
import type { Candidate, MatchContext } from "./match-context.ts"
import { indentOf, isBlank } from "./reindent.ts"

/**
 * A span matched as written (not line by line): newString at the indentation of the text it replaces
 * (base-indent.ts), when the span begins a line's text (at its start, or after its indentation).
 */
export function landingOf(context: MatchContext, candidate: Candidate, text: string) {
  const first = context.lineOf(candidate.start)
  const prefix = context.content.slice(context.starts[first], candidate.start)
  if (prefix.trim() !== "") return { ok: true, text } as const
  const last = context.lineOf(Math.max(candidate.start, candidate.end - 1))
  return landAtBase({
    fileLines: context.lines.slice(first, last + 1),
    firstLine: first + 1,
    prefix,
    text,
  })
}

/**
 * After the line-aligned path moved newString by oldString's indentation: newString landed at the
 * indentation of the lines it replaces instead, when what that path produced does not sit there and
 * newString as written, landed at the base, does (base-indent.ts `landAligned`). Only the indentation
 * moves, and only when the produced lines are newString's line for line (the merge's text, in the
 * file's typography, is kept); undefined: keep what was produced.
 */
export function relanded(
  context: MatchContext,
  candidate: Candidate,
  replacement: string,
  produced: string,
): { text: string; note: string } | undefined {
  const written = replacement.split("\n")
  const lines = produced.split("\n")
  if (written.length !== lines.length || lines.some((line, k) => isBlank(line) !== isBlank(written[k]!)))
    return undefined
  const first = context.lineOf(candidate.start)
  const last = context.lineOf(Math.max(candidate.start, candidate.end - 1))
  const landed = landAligned({
    fileLines: context.lines.slice(first, last + 1),
    firstLine: first + 1,
    prefix: "",
    // The produced lines at newString's own indentation: newString as written, in the file's text.
    text: lines
      .map((line, k) => (isBlank(line) ? line : indentOf(written[k]!) + line.trimStart()))
      .join("\n"),
    produced,
  })
  if (!landed.ok || !landed.note || landed.text === produced) return undefined
  return { text: landed.text, note: landed.note }
}
