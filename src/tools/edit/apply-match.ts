/** Writes the chosen candidates' replacements into the file, with the notes on what was reconciled. */

import {
  endingForSpan,
  type LFText,
  type LineEnding,
  originalOffset,
  withLineEnding,
} from "./line-endings.ts"
import { lineNumbers } from "./line-numbers.ts"
import type { Candidate, MatchContext, Matcher } from "./match-context.ts"
import { indentOf, reindent } from "./reindent.ts"
import type { ReplaceResult } from "./replace-result.ts"

interface Application {
  /** The file's text as given. */
  readonly content: string
  readonly file: LFText
  readonly context: MatchContext
  readonly matcher: Matcher
  readonly chosen: readonly Candidate[]
  /** newString, LF, gutters stripped. */
  readonly replacement: string
  /** newString as the caller gave it. */
  readonly newString: string
  readonly notes: string[]
}

export function apply(input: Application): ReplaceResult {
  const { file, context, matcher, chosen, replacement, notes } = input
  const pieces: string[] = []
  const endings = new Set<LineEnding>()
  let at = 0
  for (const candidate of chosen) {
    let text = candidate.adapt ? candidate.adapt(replacement) : replacement
    const description =
      candidate.describe ??
      (matcher.name === "line-trimmed" ? describeLines(context, candidate) : matcher.describe)
    if (description && !notes.includes(description)) notes.push(description)
    if (candidate.lines) {
      const re = reindentFor(context, candidate, text)
      if (re) {
        text = re.text
        if (!notes.includes(re.note)) notes.push(re.note)
      }
    }
    if (candidate.missingNewline && text.endsWith("\n")) {
      text = text.slice(0, -1)
      const note = "the file's last line has no line break, so newString's final line break was dropped"
      if (!notes.includes(note)) notes.push(note)
    }
    const start = originalOffset(file, candidate.start)
    const end = originalOffset(file, candidate.end)
    const ending = endingForSpan(file, candidate.start, candidate.end)
    if (text.includes("\n")) endings.add(ending)
    pieces.push(input.content.slice(at, start), withLineEnding(text, ending))
    at = end
  }
  pieces.push(input.content.slice(at))
  const lineNote = lineEndingNote(input.newString, endings)
  if (lineNote) notes.push(lineNote)
  const lines = lineNumbers(
    file.text,
    chosen.map((candidate) => candidate.start),
  )
  return {
    ok: true,
    content: pieces.join(""),
    matcher: matcher.name,
    occurrences: chosen.length,
    lines,
    ...(notes.length > 0 ? { normalisation: notes.join("; ") } : {}),
  }
}

/**
 * For a line-trimmed match, what exactly differed; "" when the lines are equal (the match only had to
 * give up oldString's final line break at the end of the file).
 */
function describeLines(context: MatchContext, candidate: Candidate): string {
  const first = candidate.lines?.first ?? 0
  const pairs = context.findLines.map((line, k) => [line, context.lines[first + k] ?? ""] as const)
  if (pairs.every(([a, b]) => a === b)) return ""
  return whitespaceDifference(pairs)
}

/** How a matched span's lines differ from oldString's, in words, for line-trimmed matches. */
function whitespaceDifference(pairs: readonly (readonly [string, string])[]): string {
  const leading = pairs.some(([a, b]) => indentOf(a) !== indentOf(b))
  const trailing = pairs.some(([a, b]) => a.length - a.trimEnd().length !== b.length - b.trimEnd().length)
  if (leading && !trailing) return "matched ignoring indentation"
  if (trailing && !leading) return "matched ignoring trailing whitespace"
  return "matched ignoring leading and trailing whitespace on each line"
}

function reindentFor(context: MatchContext, candidate: Candidate, text: string) {
  const { first, count } = candidate.lines!
  const matchedLines = context.lines.slice(first, first + count)
  const n = context.findLines.length
  const pairs: (readonly [number, number])[] =
    count === n
      ? context.findLines.map((_, k) => [k, k] as const)
      : [
          [0, 0],
          [n - 1, count - 1],
        ]
  return reindent({
    newString: text,
    oldLines: context.findLines,
    matchedLines,
    pairs,
    ...(context.indentUnit ? { fileUnit: context.indentUnit } : {}),
  })
}

/** Says so when newString's line breaks were written in another convention than it used. */
function lineEndingNote(newString: string, endings: ReadonlySet<LineEnding>): string | undefined {
  const crlf = newString.includes("\r\n")
  const bareLF = /(^|[^\r])\n/.test(newString)
  if (endings.has("\r\n") && bareLF) return "newString's line breaks written as CRLF, as the file uses"
  if (endings.has("\n") && crlf) return "newString's line breaks written as LF, as the file uses"
  return undefined
}
