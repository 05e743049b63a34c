/**
 * The edit tool's matchers, in the order the chain runs them: each a generator that yields every span
 * of the file it takes for oldString. The chain, its order and what each matcher's match is
 * called come first; then the matchers, numbered as they run. What they share (the match context, text
 * forms, search primitives) is in match-context.ts; how the chain is driven (first matcher with a
 * candidate decides, ambiguity, guards) is in replace.ts.
 */
import { alignedWindows } from "./line-alignment.ts"
import {
  type Candidate,
  collapseWhitespace,
  escapeRegExp,
  type MatchContext,
  type Matcher,
  occurrences,
  splitLines,
  unescapeString,
  wantLines,
  windowsWhere,
} from "./match-context.ts"
import { indentOf, isBlank } from "./reindent.ts"
import { ESCAPES, escapeLike } from "./spelling.ts"
import { foldLine } from "./typography.ts"

/**
 * The chain: opencode's matchers in opencode's order, without the two that accept lines by similarity
 * (block-anchor, context-aware: a line that is only similar may be one the model meant differently, and
 * they matched near-duplicates, blocks with half their lines wrong and blocks with a middle left out),
 * then three that align oldString's lines with the file's across what a model cannot have meant
 * differently (line-alignment.ts): typography and whitespace, blank lines, a first or last line that is
 * part of the file's line. A match by them (and by line-trimmed, whitespace-normalised and
 * indentation-flexible, which match whole lines too) carries its alignment, and newString is merged into
 * it line by line (merge.ts).
 */
export const MATCHERS: readonly Matcher[] = [
  { name: "exact", describe: "", when: "", find: exact },
  {
    name: "line-trimmed",
    describe: "matched ignoring leading and trailing whitespace on each line",
    when: "when ignoring leading and trailing whitespace on each line",
    find: lineTrimmed,
  },
  {
    name: "whitespace-normalised",
    describe: "matched ignoring differences in whitespace",
    when: "when ignoring differences in whitespace",
    find: whitespaceNormalised,
  },
  {
    name: "indentation-flexible",
    describe: "matched ignoring indentation",
    when: "when ignoring indentation",
    find: indentationFlexible,
  },
  {
    name: "escape-normalised",
    describe: 'matched after unescaping backslash sequences (\\n, \\t, \\", ...) in oldString and newString',
    when: "when unescaping backslash sequences",
    find: escapeNormalised,
  },
  {
    name: "trimmed-boundary",
    describe: "matched ignoring whitespace at the start and end of oldString",
    when: "when ignoring whitespace at the start and end of oldString",
    find: trimmedBoundary,
  },
  {
    name: "typographic",
    describe:
      "matched ignoring typography (curly and straight quotes, dashes and hyphens, an ellipsis and three dots, no-break spaces) and whitespace",
    when: "when ignoring typography and whitespace",
    find: typographic,
  },
  {
    name: "blank-line-tolerant",
    describe: "matched ignoring blank lines that differ from the file's (and typography and whitespace)",
    when: "when ignoring blank lines, typography and whitespace",
    find: blankLineTolerant,
  },
  {
    name: "partial-lines",
    describe:
      "matched with oldString's first line as the end of a line of the file (or its last line as the start of one)",
    when: "when its first or last line may be part of a line",
    find: partialLines,
  },
  { name: "multi-occurrence", describe: "", when: "", find: multiOccurrence },
]

/** 1. Exact. */
export function* exact(context: MatchContext): Generator<Candidate> {
  for (const at of occurrences(context.content, context.find))
    yield { start: at, end: at + context.find.length }
}

/** 2. Line-trimmed: every line equal once trimmed. */
export function* lineTrimmed(context: MatchContext): Generator<Candidate> {
  const want = wantLines(context, (line) => line.trim())
  if (!want) return
  for (const i of windowsWhere(context, context.trimmed, want)) yield context.alignedWindow(i)
}

/** 3. Whitespace-normalised: whitespace runs collapsed, inside lines too. */
export function* whitespaceNormalised(context: MatchContext): Generator<Candidate> {
  const want = wantLines(context, collapseWhitespace)
  if (!want) return
  if (want.length > 1) {
    for (const i of windowsWhere(context, context.collapsed, want)) yield context.alignedWindow(i)
    return
  }
  // One line: the whole line, or the part of a line that matches word for word.
  const target = want[0]!
  const pattern = new RegExp(target.split(" ").map(escapeRegExp).join("\\s+"), "g")
  const have = context.collapsed
  for (let i = 0; i < have.length; i++) {
    if (have[i] === target) {
      yield context.alignedWindow(i)
      continue
    }
    if (!have[i]!.includes(target)) continue
    const base = context.starts[i]!
    for (const match of context.lines[i]!.matchAll(pattern)) {
      const start = base + match.index
      yield {
        start,
        end: start + match[0].length,
        ...(context.endsWithNewline ? { missingNewline: true } : {}),
      }
    }
  }
}

/** Lines without the indentation they all share (blank lines become empty). */
function withoutCommonIndent(lines: readonly string[]): string[] {
  let common = Number.POSITIVE_INFINITY
  for (const line of lines) if (!isBlank(line)) common = Math.min(common, indentOf(line).length)
  return lines.map((line) => (isBlank(line) ? "" : line.slice(common)))
}

/** 4. Indentation-flexible: equal once each side loses its common indentation. */
export function* indentationFlexible(context: MatchContext): Generator<Candidate> {
  const want = withoutCommonIndent(context.findLines)
  if (want.every((line) => line === "")) return
  const n = want.length
  const pivot = want.findIndex((line) => line !== "")
  const pivotText = want[pivot]!.trim()
  const { lines, trimmed } = context
  next: for (let i = 0; i + n <= lines.length; i++) {
    if (trimmed[i + pivot] !== pivotText) continue
    const got = withoutCommonIndent(lines.slice(i, i + n))
    for (let k = 0; k < n; k++) if (got[k] !== want[k]) continue next
    yield context.alignedWindow(i)
  }
}

/**
 * 5. Escape-normalised: oldString over-escaped (\n, \t, \" ... for real characters), or the file holds
 * escapes that oldString has resolved.
 */
export function* escapeNormalised(context: MatchContext): Generator<Candidate> {
  const unescaped = unescapeString(context.find)
  if (unescaped.trim() === "") return
  if (unescaped !== context.find) {
    // The model escaped what the file has as real characters: it escaped newString the same way.
    const adapt = unescapeString
    for (const at of occurrences(context.content, unescaped))
      yield { start: at, end: at + unescaped.length, adapt }
  }
  // Lines compared trimmed: the model may have copied the text without the line's indentation
  // (newString is then re-indented like any whole-line match).
  const want = splitLines(unescaped).map((line) => line.trim())
  const endsWithNewline = unescaped.length > 1 && unescaped.endsWith("\n")
  const { lines, trimmed } = context
  const have = context.unescaped.map((line, i) => (line === lines[i] ? trimmed[i]! : line.trim()))
  for (const i of windowsWhere(context, have, want)) {
    const raw = context.lines.slice(i, i + want.length)
    if (raw.every((line, k) => line.trim() === want[k])) continue // no escapes: not this case
    const describe = "matched the file's escaped text (\\\", \\t, ...) against oldString's unescaped text"
    if (unescaped === context.find) {
      // oldString is the file's lines unescaped, line for line: newString is merged into them, and
      // keeps the file's escapes wherever it does not change the text.
      yield { ...context.alignedWindow(i), spelling: ESCAPES, describe }
      continue
    }
    yield { ...context.window(i, want.length, endsWithNewline), adapt: escapeLike(raw.join("\n")), describe }
  }
}

/** 6. Trimmed-boundary: oldString with whitespace around it that the file does not have there. */
export function* trimmedBoundary(context: MatchContext): Generator<Candidate> {
  const { find } = context
  const trimmed = find.trim()
  if (trimmed === find || trimmed === "") return
  const lead = find.length - find.trimStart().length
  const trail = find.length - find.trimEnd().length
  // newString loses as much of its own surrounding whitespace as oldString had (no more: extra blank
  // lines the model added around its text stay).
  const adapt = (text: string) => {
    const start = Math.min(lead, text.length - text.trimStart().length)
    const end = Math.min(trail, text.length - text.trimEnd().length)
    return text.slice(start, text.length - end)
  }
  for (const at of occurrences(context.content, trimmed)) yield { start: at, end: at + trimmed.length, adapt }
}

/**
 * 7. Typographic: every line equal once folded (typography.ts: look-alike quotes, dashes, ellipses and
 * spaces as one form, whitespace runs as one space, trimmed). One line may also match part of a line.
 */
export function* typographic(context: MatchContext): Generator<Candidate> {
  yield* alignedWindows(context, { blankLines: false, partial: false })
  if (context.findLines.length !== 1 || context.endsWithNewline) return
  const want = foldLine(context.findLines[0]!).text
  if (want === "") return
  const keys = context.folded
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (key === want || !key.includes(want)) continue
    const folded = foldLine(context.lines[i]!)
    for (let at = key.indexOf(want); at !== -1; at = key.indexOf(want, at + 1)) {
      const firstColumn = folded.from[at]!
      const lastColumn = folded.to[at + want.length - 1]!
      const base = context.starts[i]!
      yield {
        start: base + firstColumn,
        end: base + lastColumn,
        alignment: { first: i, count: 1, fileLineOf: [0], firstColumn, lastColumn },
      }
    }
  }
}

/** 8. Blank-line-tolerant: the typographic match, with runs of blank lines up to two lines off. */
export function* blankLineTolerant(context: MatchContext): Generator<Candidate> {
  yield* alignedWindows(context, { blankLines: true, partial: false })
}

/**
 * 9. Partial-lines: oldString's first line is the end of a file line (or its last line the start of
 * one), cut at a word boundary; the lines between match as in blank-line-tolerant.
 */
export function* partialLines(context: MatchContext): Generator<Candidate> {
  yield* alignedWindows(context, { blankLines: true, partial: true })
}

/**
 * 10. Multi-occurrence: every exact occurrence. opencode needs it to count occurrences for replaceAll;
 * here the exact matcher already yields them all, so it never finds what exact missed. It stays last
 * so the chain keeps opencode's shape.
 */
export function* multiOccurrence(context: MatchContext): Generator<Candidate> {
  yield* exact(context)
}
