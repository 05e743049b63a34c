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
import { describeClosest } from "./closest.ts"
import { stripGutters } from "./gutter.ts"
import {
  endingForSpan,
  type LFText,
  type LineEnding,
  normaliseLineEndings,
  originalOffset,
  toLF,
  withLineEnding,
} from "./line-endings.ts"
import { detectIndentUnit, type IndentUnit, indentOf, isBlank, reindent } from "./reindent.ts"
import { bigrams, dice, similarity, similarityBound } from "./similarity.ts"

export type MatcherName =
  | "exact"
  | "line-trimmed"
  | "block-anchor"
  | "whitespace-normalised"
  | "indentation-flexible"
  | "escape-normalised"
  | "trimmed-boundary"
  | "context-aware"
  | "multi-occurrence"

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
      readonly reason: "not-found" | "ambiguous" | "identical" | "empty"
      readonly message: string
    }

export const IDENTICAL_MESSAGE = "No changes to apply: oldString and newString are identical."
export const EMPTY_MESSAGE =
  "oldString cannot be empty when editing an existing file. Provide the exact text to replace, or use write for an intentional full-file replacement."
export const NOT_FOUND_MESSAGE =
  "Could not find oldString in the file. It must match exactly, including whitespace and indentation."

/** A span of the (LF) file text that a matcher takes for oldString. */
export interface Candidate {
  readonly start: number
  readonly end: number
  /** Set when the span is whole lines: the 0-based first line and how many. */
  readonly lines?: { readonly first: number; readonly count: number }
  /** oldString ends with a line break that the span could not take (the file's last line has none). */
  readonly missingNewline?: boolean
  /** A change newString needs to fit this span (unescaping, trimming), before re-indentation. */
  readonly adapt?: (newString: string) => string
  /** Overrides the matcher's description for this span (e.g. with a similarity). */
  readonly describe?: string
}

export interface Matcher {
  readonly name: MatcherName
  /** What a match by this matcher ignored, for the normalisation text. */
  readonly describe: string
  /** How this matcher's ambiguity is worded: "Found N matches for oldString <when ...>". */
  readonly when: string
  readonly find: (context: MatchContext) => Iterable<Candidate>
}

/**
 * What the matchers share for one call: the LF file text and oldString, with line arrays computed once
 * and only when a matcher needs them (an exact edit never splits the file).
 */
export class MatchContext {
  readonly content: string
  readonly find: string
  /** oldString's lines; a final line break ends the last line instead of starting an empty one. */
  readonly findLines: readonly string[]
  readonly endsWithNewline: boolean
  #lines?: string[]
  #starts?: number[]
  #trimmed?: string[]
  #collapsed?: string[]
  #unescaped?: string[]
  #unit?: { value: IndentUnit | undefined }

  constructor(content: string, find: string) {
    this.content = content
    this.find = find
    this.endsWithNewline = find.length > 1 && find.endsWith("\n")
    this.findLines = splitLines(find)
  }

  get lines(): readonly string[] {
    this.#lines ??= this.content.split("\n")
    return this.#lines
  }

  /** Offset of each line's first character. */
  get starts(): readonly number[] {
    if (!this.#starts) {
      const starts: number[] = new Array(this.lines.length)
      let at = 0
      for (let i = 0; i < this.lines.length; i++) {
        starts[i] = at
        at += this.lines[i]!.length + 1
      }
      this.#starts = starts
    }
    return this.#starts
  }

  get trimmed(): readonly string[] {
    this.#trimmed ??= this.lines.map((line) => line.trim())
    return this.#trimmed
  }

  /** Lines with whitespace runs collapsed to one space, trimmed. */
  get collapsed(): readonly string[] {
    this.#collapsed ??= this.lines.map(collapseWhitespace)
    return this.#collapsed
  }

  /** Lines with backslash escapes resolved (see `unescapeString`). */
  get unescaped(): readonly string[] {
    this.#unescaped ??= this.lines.map(unescapeLine)
    return this.#unescaped
  }

  /** The file's indentation unit, if it indents at all. */
  get indentUnit(): IndentUnit | undefined {
    this.#unit ??= { value: detectIndentUnit(this.lines) }
    return this.#unit.value
  }

  /** 0-based line of an offset. */
  lineOf(offset: number): number {
    const starts = this.starts
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >>> 1
      if (starts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    return low
  }

  /**
   * The span of `count` whole lines from `first`. When oldString (or `endsWithNewline`) ends with a line
   * break, the span takes the one after its last line too, so newString's own final line break replaces
   * it rather than adding a line.
   */
  window(first: number, count: number, endsWithNewline = this.endsWithNewline): Candidate {
    const last = first + count - 1
    const start = this.starts[first]!
    let end = this.starts[last]! + this.lines[last]!.length
    let missingNewline = false
    if (endsWithNewline) {
      if (last < this.lines.length - 1) end++
      else missingNewline = true
    }
    return { start, end, lines: { first, count }, ...(missingNewline ? { missingNewline } : {}) }
  }
}

/** Lines of a text; a final line break ends the last line instead of starting an empty one. */
function splitLines(text: string): string[] {
  return (text.length > 1 && text.endsWith("\n") ? text.slice(0, -1) : text).split("\n")
}

/** Whitespace runs collapsed to one space, trimmed. Most lines need only the trim. */
function collapseWhitespace(text: string): string {
  const trimmed = text.trim()
  return /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, " ") : trimmed
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}

/** Every start of `needle` in `text`, overlapping ones included. */
function* occurrences(text: string, needle: string): Generator<number> {
  if (needle === "") return
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) yield at
}

/**
 * Starts of the windows of `want.length` lines where every line of `have` (the file's lines, mapped as
 * the matcher compares them) equals `want`'s. Linear in the file plus the work on windows whose most
 * selective line already matches.
 */
function* windowsWhere(
  context: MatchContext,
  have: readonly string[],
  want: readonly string[],
): Generator<number> {
  const count = want.length
  // Start from the first non-blank wanted line: it is the most selective.
  const pivot = Math.max(
    0,
    want.findIndex((line) => line !== ""),
  )
  const last = context.lines.length - count
  next: for (let i = 0; i <= last; i++) {
    if (have[i + pivot] !== want[pivot]) continue
    for (let k = 0; k < count; k++) if (have[i + k] !== want[k]) continue next
    yield i
  }
}

// 1. Exact.
function* exact(context: MatchContext): Generator<Candidate> {
  for (const at of occurrences(context.content, context.find))
    yield { start: at, end: at + context.find.length }
}

/** Lines of oldString compared by a looser matcher: none when it is blank (it would match any blank line). */
function wantLines(context: MatchContext, map: (line: string) => string): string[] | undefined {
  const want = context.findLines.map(map)
  return want.every((line) => line.trim() === "") ? undefined : want
}

// 2. Line-trimmed: every line equal once trimmed.
function* lineTrimmed(context: MatchContext): Generator<Candidate> {
  const want = wantLines(context, (line) => line.trim())
  if (!want) return
  for (const i of windowsWhere(context, context.trimmed, want)) yield context.window(i, want.length)
}

/** Least middle-line similarity a block-anchor candidate needs (opencode 1.18). */
export const BLOCK_ANCHOR_THRESHOLD = 0.65

// 3. Block-anchor: first and last lines as anchors, middle lines similar enough.
function* blockAnchor(context: MatchContext): Generator<Candidate> {
  const want = context.findLines.map((line) => line.trim())
  const n = want.length
  const [open, close] = [want[0]!, want[n - 1]!]
  // At least three lines (counted without a final line break, so a trailing "\n" cannot turn two lines
  // into three: opencode #14632), and anchors that say something.
  if (n < 3 || open === "" || close === "") return
  const slack = Math.max(1, Math.floor(n * 0.25))
  const have = context.trimmed
  const memo: ScoreMemo = { scores: [], cells: 0 }
  for (let i = 0; i < have.length; i++) {
    if (have[i] !== open) continue
    // The closing anchor nearest to where a block of n lines would end, within the slack.
    let end = -1
    for (let d = 0; d <= slack && end === -1; d++) {
      for (const j of d === 0 ? [i + n - 1] : [i + n - 1 - d, i + n - 1 + d]) {
        if (j >= i + 2 && j < have.length && have[j] === close) {
          end = j
          break
        }
      }
    }
    if (end === -1) continue
    const score = middleSimilarity(want, have, i, end - i + 1, memo)
    if (score < BLOCK_ANCHOR_THRESHOLD) continue
    yield {
      ...context.window(i, end - i + 1),
      describe: `matched by its first and last lines (middle lines ${Math.floor(score * 100)}% similar)`,
    }
  }
}

/** Levenshtein cells one block-anchor search may spend (tens of milliseconds) before it compares by bigrams. */
const LEVENSHTEIN_BUDGET = 10_000_000

interface ScoreMemo {
  /** Per middle line of oldString: file line text → similarity. */
  readonly scores: Map<string, number>[]
  /** Levenshtein cells spent so far. */
  cells: number
}

/**
 * Mean similarity of the middle lines of oldString and of the candidate, paired in order. A pair of
 * blank lines is left out entirely (opencode counts it against the match: #45199); lines one block has
 * and the other lacks count as 0. 1 when there is nothing to compare.
 *
 * Bounded for files with many anchor pairs: a linear upper bound of every pair's similarity is checked
 * first, scores are remembered per (middle line, file line text) so repeated lines cost one comparison,
 * scoring stops as soon as even perfect remaining lines could not reach the threshold (the value
 * returned is then below it), and past a budget of Levenshtein work lines are compared by bigrams.
 */
function middleSimilarity(
  want: readonly string[],
  have: readonly string[],
  first: number,
  count: number,
  memo: ScoreMemo,
): number {
  const paired = Math.min(want.length, count) - 2
  const unpaired = Math.max(want.length, count) - 2 - paired
  let bound = 0
  let boundCounted = unpaired
  for (let k = 1; k <= paired; k++) {
    const a = want[k]!
    const b = have[first + k]!
    if (a === "" && b === "") continue
    boundCounted++
    bound += similarityBound(a, b)
  }
  if (boundCounted > 0 && bound / boundCounted < BLOCK_ANCHOR_THRESHOLD) return bound / boundCounted
  let counted = unpaired
  let sum = 0
  for (let k = 1; k <= paired; k++) {
    const a = want[k]!
    const b = have[first + k]!
    if (a === "" && b === "") continue
    counted++
    let seen = memo.scores[k]
    if (!seen) {
      seen = new Map()
      memo.scores[k] = seen
    }
    let score = seen.get(b)
    if (score === undefined) {
      // Levenshtein while the call's budget lasts, then bigrams (linearithmic).
      memo.cells += a.length * b.length
      score = memo.cells <= LEVENSHTEIN_BUDGET ? similarity(a, b) : dice(bigrams(a), bigrams(b))
      seen.set(b, score)
    }
    sum += score
    const remaining = paired - k
    const best = (sum + remaining) / (counted + remaining)
    if (best < BLOCK_ANCHOR_THRESHOLD) return best
  }
  return counted <= 0 ? 1 : sum / counted
}

// 4. Whitespace-normalised: whitespace runs collapsed, inside lines too.
function* whitespaceNormalised(context: MatchContext): Generator<Candidate> {
  const want = wantLines(context, collapseWhitespace)
  if (!want) return
  if (want.length > 1) {
    for (const i of windowsWhere(context, context.collapsed, want)) yield context.window(i, want.length)
    return
  }
  // One line: the whole line, or the part of a line that matches word for word.
  const target = want[0]!
  const pattern = new RegExp(target.split(" ").map(escapeRegExp).join("\\s+"), "g")
  const have = context.collapsed
  for (let i = 0; i < have.length; i++) {
    if (have[i] === target) {
      yield context.window(i, 1)
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

// 5. Indentation-flexible: equal once each side loses its common indentation.
function* indentationFlexible(context: MatchContext): Generator<Candidate> {
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
    yield context.window(i, n)
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "'": "'",
  '"': '"',
  "`": "`",
  "\\": "\\",
  $: "$",
  "\n": "\n",
}

/**
 * Resolves the escapes models add when they over-escape code: a backslash before n, t, r, a quote, a
 * backtick, a backslash, a dollar sign or a line break. Other backslashes stay.
 */
export function unescapeString(text: string): string {
  return text.replace(/\\([ntr'"`\\$\n])/g, (_, char: string) => ESCAPES[char]!)
}

/** `unescapeString` for one line of a file: a backslash that ends the line escapes its line break. */
function unescapeLine(line: string): string {
  if (!line.includes("\\")) return line
  const out = unescapeString(line)
  // An odd run of backslashes at the end leaves one unpaired: it escaped the line break, which unescapes
  // to the line break itself, so the backslash goes.
  let run = 0
  while (run < line.length && line[line.length - 1 - run] === "\\") run++
  return run % 2 === 1 ? out.slice(0, -1) : out
}

// 6. Escape-normalised: oldString over-escaped (\n, \t, \" ... for real characters), or the file holds
// escapes that oldString has resolved.
function* escapeNormalised(context: MatchContext): Generator<Candidate> {
  const unescaped = unescapeString(context.find)
  if (unescaped.trim() === "") return
  if (unescaped !== context.find) {
    // The model escaped what the file has as real characters: it escaped newString the same way.
    const adapt = unescapeString
    for (const at of occurrences(context.content, unescaped))
      yield { start: at, end: at + unescaped.length, adapt }
  }
  const want = splitLines(unescaped)
  const endsWithNewline = unescaped.length > 1 && unescaped.endsWith("\n")
  for (const i of windowsWhere(context, context.unescaped, want)) {
    const raw = context.lines.slice(i, i + want.length)
    if (raw.every((line, k) => line === want[k])) continue // no escapes: an occurrence, not this case
    yield {
      ...context.window(i, want.length, endsWithNewline),
      adapt: escapeLike(raw.join("\n")),
      describe: "matched the file's escaped text (\\\", \\t, ...) against oldString's unescaped text",
    }
  }
}

/**
 * For a span whose quotes (or dollar signs) are all backslash-escaped in the file: escapes the same
 * characters in newString, so replacing it keeps the file's escaping.
 */
function escapeLike(fileText: string): (newString: string) => string {
  const chars = ['"', "'", "`", "$"].filter((char) => {
    const all = fileText.split(char).length - 1
    const escaped = fileText.split(`\\${char}`).length - 1
    return escaped > 0 && escaped === all
  })
  return (newString) =>
    chars.reduce(
      (text, char) => text.replace(new RegExp(`(?<!\\\\)${escapeRegExp(char)}`, "g"), `\\${char}`),
      newString,
    )
}

// 7. Trimmed-boundary: oldString with whitespace around it that the file does not have there.
function* trimmedBoundary(context: MatchContext): Generator<Candidate> {
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

// 8. Context-aware: same line count, first and last lines equal, at least half the middle lines equal.
function* contextAware(context: MatchContext): Generator<Candidate> {
  const want = context.findLines.map((line) => line.trim())
  const n = want.length
  if (n < 3 || want[0] === "" || want[n - 1] === "") return
  const have = context.trimmed
  for (let i = 0; i + n <= have.length; i++) {
    if (have[i] !== want[0] || have[i + n - 1] !== want[n - 1]) continue
    let total = 0
    let equal = 0
    for (let k = 1; k < n - 1; k++) {
      if (want[k] === "") continue
      total++
      if (have[i + k] === want[k]) equal++
    }
    if (total === 0 || equal * 2 < total) continue
    yield {
      ...context.window(i, n),
      describe: `matched by its first and last lines and ${equal} of ${total} middle lines`,
    }
  }
}

// 9. Multi-occurrence: every exact occurrence. opencode needs it to count occurrences for replaceAll;
// here the exact matcher already yields them all, so it never finds what exact missed. It stays last
// so the chain keeps opencode's shape.
function* multiOccurrence(context: MatchContext): Generator<Candidate> {
  yield* exact(context)
}

/** The chain, in opencode's order. */
export const MATCHERS: readonly Matcher[] = [
  { name: "exact", describe: "", when: "", find: exact },
  {
    name: "line-trimmed",
    describe: "matched ignoring leading and trailing whitespace on each line",
    when: "when ignoring leading and trailing whitespace on each line",
    find: lineTrimmed,
  },
  {
    name: "block-anchor",
    describe: "matched by its first and last lines",
    when: "when matching by first and last lines",
    find: blockAnchor,
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
    name: "context-aware",
    describe: "matched by its first and last lines and most middle lines",
    when: "when matching by first and last lines",
    find: contextAware,
  },
  { name: "multi-occurrence", describe: "", when: "", find: multiOccurrence },
]

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

/** 1-based line numbers of ascending offsets, counting line breaks once. */
function lineNumbers(text: string, offsets: readonly number[]): number[] {
  const out: number[] = []
  let line = 1
  let at = 0
  for (const offset of offsets) {
    for (
      let next = text.indexOf("\n", at);
      next !== -1 && next < offset;
      next = text.indexOf("\n", next + 1)
    ) {
      line++
      at = next + 1
    }
    out.push(line)
  }
  return out
}

function listLines(lines: readonly number[]): string {
  const shown = lines.slice(0, 20).join(", ")
  return lines.length > 20 ? `${shown} and ${lines.length - 20} more` : shown
}

/** How a matched span's lines differ from oldString's, in words, for line-trimmed matches. */
function whitespaceDifference(pairs: readonly (readonly [string, string])[]): string {
  const leading = pairs.some(([a, b]) => indentOf(a) !== indentOf(b))
  const trailing = pairs.some(([a, b]) => a.length - a.trimEnd().length !== b.length - b.trimEnd().length)
  if (leading && !trailing) return "matched ignoring indentation"
  if (trailing && !leading) return "matched ignoring trailing whitespace"
  return "matched ignoring leading and trailing whitespace on each line"
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
