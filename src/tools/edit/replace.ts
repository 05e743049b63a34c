/**
 * The edit tool's matcher chain: where in a file oldString is, and what the file becomes when newString
 * takes its place. Pure: text in, text out.
 *
 * The chain is opencode's (exact, line-trimmed, block-anchor, whitespace-normalised,
 * indentation-flexible, escape-normalised, trimmed-boundary, context-aware, multi-occurrence) with its
 * 1.18 safety guards, and made safe to trust:
 * - each matcher yields every candidate span it finds, and the first matcher that finds any decides:
 *   one candidate is replaced, several are an `ambiguous` error with their line numbers (never "go on
 *   to a looser matcher that happens to find one", so a looser matcher never picks one of several
 *   exact matches);
 * - when a whole-line match has other indentation than oldString, newString is re-indented to the file
 *   (reindent.ts), in the file's unit (tabs or N spaces);
 * - line-number gutters copied from read output are stripped (gutter.ts);
 * - CRLF is handled here (line-endings.ts): pass the file's text as read (BOM removed), write back what
 *   comes out;
 * - a miss names the closest region of the file with a line diff (closest.ts).
 */
import { apply } from "./apply-match.ts"
import { describeClosest } from "./closest.ts"
import { stripGutters } from "./gutter.ts"
import { normaliseLineEndings, toLF } from "./line-endings.ts"
import { lineNumbers } from "./line-numbers.ts"
import { type Candidate, MatchContext, type Matcher } from "./match-context.ts"
import { MATCHERS } from "./matcher-chain.ts"
import { EMPTY_MESSAGE, IDENTICAL_MESSAGE, NOT_FOUND_MESSAGE, type ReplaceResult } from "./replace-result.ts"

/**
 * The 1.18 guard against a fuzzy match swallowing far more than oldString: a span is refused when it
 * has at least max(oldLines + 3, 2 × oldLines) lines, or, for a multi-line oldString, when its trimmed
 * text is longer than max(trimmed oldString + 500, 4 × trimmed oldString) characters. Line-based
 * matchers here compare windows of oldString's own line count (block-anchor allows ±25%), so this is a
 * backstop that no matcher should reach.
 */
export function isDisproportionate(span: string, oldString: string): boolean {
  const spanLines = span.split("\n").length
  const oldLines = oldString.split("\n").length
  if (spanLines >= Math.max(oldLines + 3, oldLines * 2)) return true
  if (oldLines <= 1) return false
  const spanLength = span.trim().length
  const oldLength = oldString.trim().length
  return spanLength > Math.max(oldLength + 500, oldLength * 4)
}

/** Every distinct candidate of one matcher, in file order; spans containing another are dropped. */
function collect(matcher: Matcher, context: MatchContext, refused: Candidate[]): Candidate[] {
  const seen = new Map<string, Candidate>()
  for (const candidate of matcher.find(context)) {
    const key = `${candidate.start}:${candidate.end}`
    if (seen.has(key)) continue
    if (
      matcher.name !== "exact" &&
      isDisproportionate(context.content.slice(candidate.start, candidate.end), context.find)
    ) {
      refused.push(candidate)
      continue
    }
    seen.set(key, candidate)
  }
  const sorted = [...seen.values()].sort((a, b) => a.start - b.start || b.end - a.end)
  // The same text reported twice, as whole lines and as the part of them that matched: keep the part.
  // (Whole-line spans nested in each other are different matches, e.g. nested blocks, and stay.) Sorted
  // by start, then longest first, a span contains another exactly when a later one ends no later.
  const kept: Candidate[] = []
  let minimumPartEnd = Number.POSITIVE_INFINITY
  for (let i = sorted.length - 1; i >= 0; i--) {
    const candidate = sorted[i]!
    if (!candidate.lines || minimumPartEnd > candidate.end) kept.push(candidate)
    if (!candidate.lines) minimumPartEnd = Math.min(minimumPartEnd, candidate.end)
  }
  return kept.reverse()
}

/** Candidates left to right, skipping any that overlaps one already taken. */
function nonOverlapping(candidates: readonly Candidate[]): Candidate[] {
  const taken: Candidate[] = []
  let end = -1
  for (const candidate of candidates) {
    if (candidate.start < end) continue
    taken.push(candidate)
    end = candidate.end
  }
  return taken
}

function listLines(lines: readonly number[]): string {
  const shown = lines.slice(0, 20).join(", ")
  return lines.length > 20 ? `${shown} and ${lines.length - 20} more` : shown
}

/**
 * Replaces oldString with newString in a file's text.
 *
 * 1. Identical strings → `identical`; an empty oldString → `empty` (creating a file is the tool's job).
 * 2. Line endings: the file and both strings are matched as LF (see line-endings.ts); untouched lines
 *    keep their bytes, new line breaks take the file's convention.
 * 3. Gutters: when oldString is not in the file as given, `12: `-style prefixes copied from read output
 *    are stripped from both strings (gutter.ts).
 * 4. The matchers run in order; the first that yields any candidate decides. Candidates much larger
 *    than oldString are refused (`isDisproportionate`).
 *    - replaceAll: every non-overlapping candidate of that matcher (so every exact occurrence, and
 *      looser matches only when there is no exact one);
 *    - otherwise one candidate is replaced, and several are `ambiguous`, with their line numbers.
 * 5. Each replacement is newString adapted to its span: unescaped or trimmed as the matcher requires,
 *    re-indented when whole lines matched with other indentation (reindent.ts), its final line break
 *    dropped at the end of a file that has none.
 * 6. Nothing found → `not-found`, naming the closest region of the file with a line diff (closest.ts).
 */
export function replace(
  content: string,
  oldString: string,
  newString: string,
  replaceAll = false,
): ReplaceResult {
  if (oldString === newString) return { ok: false, reason: "identical", message: IDENTICAL_MESSAGE }
  if (oldString === "") return { ok: false, reason: "empty", message: EMPTY_MESSAGE }

  const file = toLF(content)
  let find = normaliseLineEndings(oldString)
  let replacement = normaliseLineEndings(newString)
  if (find === replacement) return { ok: false, reason: "identical", message: IDENTICAL_MESSAGE }

  const notes: string[] = []
  if (!file.text.includes(find)) {
    const stripped = stripGutters(find, replacement)
    if (stripped && stripped.oldString.trim() !== "") {
      const fromBoth = stripped.newString !== replacement
      find = stripped.oldString
      replacement = stripped.newString
      notes.push(
        `line-number prefixes copied from read output were stripped from ${fromBoth ? "oldString and newString" : "oldString"}`,
      )
      if (find === replacement) return { ok: false, reason: "identical", message: IDENTICAL_MESSAGE }
    }
  }

  const context = new MatchContext(file.text, find)
  const refused: Candidate[] = []
  for (const matcher of MATCHERS) {
    const found = collect(matcher, context, refused)
    if (found.length === 0) continue
    if (!replaceAll && found.length > 1) {
      const lines = lineNumbers(
        file.text,
        found.map((candidate) => candidate.start),
      )
      const when = matcher.when ? ` ${matcher.when}` : ""
      return {
        ok: false,
        reason: "ambiguous",
        message: `Found ${found.length} matches for oldString (at lines ${listLines(lines)})${when}. Provide more surrounding lines in oldString to identify the correct match, or set replaceAll to true.`,
      }
    }
    const chosen = replaceAll ? nonOverlapping(found) : found
    return apply({ content, file, context, matcher, chosen, replacement, newString, notes })
  }

  const parts = [NOT_FOUND_MESSAGE]
  const first = refused[0]
  if (first) {
    const [from, to] = [
      context.lineOf(first.start) + 1,
      context.lineOf(Math.max(first.start, first.end - 1)) + 1,
    ]
    parts.push(
      `A looser match at lines ${from}-${to} was refused because the matched span is much larger than oldString. Re-read the file and provide the full exact oldString for the intended replacement.`,
    )
  }
  parts.push(describeClosest(context.lines, context.findLines, context.trimmed))
  return { ok: false, reason: "not-found", message: parts.join("\n\n") }
}
