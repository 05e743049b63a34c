/**
 * The edit tool's matcher chain: where in a file oldString is, and what the file becomes when newString
 * takes its place. Pure: text in, text out.
 *
 * The chain is opencode's (exact, line-trimmed, whitespace-normalised, indentation-flexible,
 * escape-normalised, trimmed-boundary, multi-occurrence; not its block-anchor and context-aware, which
 * accept lines that are only similar) with its 1.18 safety guards, plus typographic, blank-line-tolerant
 * and partial-lines (matchers.ts), and made safe to trust:
 * - each matcher yields every candidate span it finds, and the first matcher that finds any decides:
 *   one candidate is replaced, several are an `ambiguous` error with their line numbers (never "go on
 *   to a looser matcher that happens to find one", so a looser matcher never picks one of several
 *   exact matches);
 * - a match of whole (or partial) lines is aligned line by line with oldString, and newString's change
 *   is merged into it (merge.ts): lines newString does not change keep the file's text (typography,
 *   whitespace, blank lines); changed and added lines take the file's indentation (reindent.ts), in its
 *   unit (tabs or N spaces), and its typography where the change did not touch it;
 * - line-number gutters copied from read output are stripped (gutter.ts);
 * - CRLF is handled here (line-endings.ts): pass the file's text as read (BOM removed), write back what
 *   comes out;
 * - a miss names the closest region of the file with a line diff (closest.ts);
 * - `describeMatch` turns a match that was not exact into the note the tool shows the model.
 */

import { describeClosest } from "./closest.ts"
import { stripGutters } from "./gutter.ts"
import { landingOf, relanded } from "./landing.ts"
import {
  endingForSpan,
  type LFText,
  type LineEnding,
  lineEndingNote,
  normaliseLineEndings,
  originalOffset,
  toLF,
  withLineEnding,
} from "./line-endings.ts"
import { lineNumbers } from "./line-numbers.ts"
import { type Candidate, MatchContext, type Matcher, type MatcherName } from "./match-context.ts"
import { MATCHERS } from "./matchers.ts"
import { merge } from "./merge.ts"
import { indentOf, reindent } from "./reindent.ts"

// What the tools say about a match that was not exact (edit and multiedit reach it through here).
export { describeMatch } from "./describe-match.ts"

export type ReplaceResult =
  | {
      readonly ok: true
      /** The new file text, in the file's own line endings. */
      readonly content: string
      readonly matcher: MatcherName
      /** How many spans were replaced. */
      readonly occurrences: number
      /** What was not exact and how it was reconciled, for the tool to report; absent when exact. */
      readonly normalisation?: string
      /** 1-based line (in the original file) where each replaced span starts. */
      readonly lines: readonly number[]
    }
  | {
      readonly ok: false
      /** not-found, ambiguous; uncertain: found, but where newString's change goes is not certain. */
      readonly reason: "not-found" | "ambiguous" | "uncertain" | "identical" | "empty"
      readonly message: string
    }

export const IDENTICAL_MESSAGE = "No changes to apply: oldString and newString are identical."
export const EMPTY_MESSAGE =
  "oldString cannot be empty when editing an existing file. Provide the exact text to replace, or use write for an intentional full-file replacement."
export const NOT_FOUND_MESSAGE =
  "Could not find oldString in the file. It must match exactly, including whitespace and indentation."

export interface ReplaceInput {
  /** The file's text as read (BOM removed), in its own line endings. */
  readonly content: string
  readonly oldString: string
  readonly newString: string
  /** Replace every candidate of the deciding matcher instead of exactly one (default false). */
  readonly replaceAll?: boolean
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
 *    or merged line by line into an aligned span (merge.ts; a change it cannot place is `uncertain`),
 *    then landed at the indentation of the lines it replaces when oldString's own indentation slipped
 *    (base-indent.ts; a span matched as written is landed or refused there too),
 *    its final line break dropped at the end of a file that has none. An edit that leaves the file as
 *    it was is `identical`.
 * 6. Nothing found → `not-found`, naming the closest region of the file with a line diff (closest.ts).
 */
export function replace(input: ReplaceInput): ReplaceResult {
  const { content, oldString, newString, replaceAll = false } = input
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
    const applied = apply({ content, file, context, matcher, chosen, replacement, newString, notes })
    if (applied.ok && applied.content === content) {
      return {
        ok: false,
        reason: "identical",
        message: `No changes to apply: oldString matched (${matcher.describe}), and with that difference set aside newString is the same text, so the file would stay as it is. Re-read the file and copy its exact text into oldString if that difference is the change you meant.`,
      }
    }
    return applied
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
  parts.push(
    describeClosest({ fileLines: context.lines, findLines: context.findLines, trimmed: context.trimmed }),
  )
  return { ok: false, reason: "not-found", message: parts.join("\n\n") }
}

/**
 * The 1.18 guard against a fuzzy match swallowing far more than oldString: a span is refused when it
 * has at least max(oldLines + 3, 2 × oldLines) lines, or, for a multi-line oldString, when its trimmed
 * text is longer than max(trimmed oldString + 500, 4 × trimmed oldString) characters. Line-based
 * matchers here compare windows of oldString's own line count (blank-line-tolerant allows two blank
 * lines more or less per run), so this is a backstop that no matcher should reach.
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

/** Step 5: writes the chosen candidates' replacements into the file, with the notes on what was reconciled. */
function apply(input: Application): ReplaceResult {
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
    if (candidate.alignment) {
      const merged = mergeInto(context, candidate, text)
      if (!merged.ok) {
        const { first, count } = candidate.alignment
        const where = count === 1 ? `line ${first + 1}` : `lines ${first + 1}-${first + count}`
        return {
          ok: false,
          reason: "uncertain",
          message: `oldString matches ${where} only ${matcher.when}, and ${merged.message}\n\n${describeClosest({ fileLines: context.lines, findLines: context.findLines, trimmed: context.trimmed })}`,
        }
      }
      const landed = candidate.alignment.firstColumn === 0 && relanded(context, candidate, text, merged.text)
      text = landed ? landed.text : merged.text
      // Relanded, the merge's own re-indentation note no longer holds; its others (typography, blank lines) do.
      const mergeNotes = landed ? merged.notes.filter((note) => !note.startsWith("newString ")) : merged.notes
      for (const note of landed ? [landed.note, ...mergeNotes] : mergeNotes)
        if (!notes.includes(note)) notes.push(note)
    } else if (candidate.lines) {
      const re = reindentFor(context, candidate, text)
      if (re) {
        const landed = relanded(context, candidate, text, re.text)
        text = landed ? landed.text : re.text
        const note = landed ? landed.note : re.note
        if (!notes.includes(note)) notes.push(note)
      }
    } else {
      const landed = landingOf(context, candidate, text)
      if (!landed.ok) return { ok: false, reason: "uncertain", message: landed.message }
      text = landed.text
      if (landed.note && !notes.includes(landed.note)) notes.push(landed.note)
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

/** newString merged into an aligned candidate's lines (merge.ts), as the text that replaces its span. */
function mergeInto(
  context: MatchContext,
  candidate: Candidate,
  replacement: string,
): { ok: true; text: string; notes: string[] } | { ok: false; message: string } {
  const { first, count, fileLineOf, firstColumn, lastColumn } = candidate.alignment!
  const fileLines = context.lines.slice(first, first + count)
  const last = fileLines.length - 1
  if (lastColumn !== undefined) fileLines[last] = fileLines[last]!.slice(0, lastColumn)
  if (firstColumn > 0) fileLines[0] = fileLines[0]!.slice(firstColumn)
  const takesLineBreak = context.endsWithNewline && replacement.endsWith("\n")
  const newLines = (takesLineBreak ? replacement.slice(0, -1) : replacement).split("\n")
  const merged = merge({
    oldLines: context.findLines,
    newLines,
    fileLines,
    fileLineOf,
    partialFirst: firstColumn > 0,
    ...(context.indentUnit ? { indentUnit: context.indentUnit } : {}),
    ...(candidate.spelling ? { spelling: candidate.spelling } : {}),
  })
  if (!merged.ok) return merged
  return { ok: true, text: merged.lines.join("\n") + (takesLineBreak ? "\n" : ""), notes: merged.notes }
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
