/**
 * The edit tool's matchers, in the order the chain runs them (opencode's): each a generator that yields
 * every span of the file it takes for oldString. The chain, its order and what each matcher's match is
 * called come first; then the matchers, numbered as they run. What they share (the match context, text
 * forms, search primitives) is in match-context.ts; how the chain is driven (first matcher with a
 * candidate decides, ambiguity, guards) is in replace.ts.
 */
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
import { bigrams, dice, similarity, similarityBound } from "./similarity.ts"

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

/** 1. Exact. */
export function* exact(context: MatchContext): Generator<Candidate> {
  for (const at of occurrences(context.content, context.find))
    yield { start: at, end: at + context.find.length }
}

/** 2. Line-trimmed: every line equal once trimmed. */
export function* lineTrimmed(context: MatchContext): Generator<Candidate> {
  const want = wantLines(context, (line) => line.trim())
  if (!want) return
  for (const i of windowsWhere(context, context.trimmed, want)) yield context.window(i, want.length)
}

/** Least middle-line similarity a block-anchor candidate needs (opencode 1.18). */
export const BLOCK_ANCHOR_THRESHOLD = 0.65

/** 3. Block-anchor: first and last lines as anchors, middle lines similar enough. */
export function* blockAnchor(context: MatchContext): Generator<Candidate> {
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

/** 4. Whitespace-normalised: whitespace runs collapsed, inside lines too. */
export function* whitespaceNormalised(context: MatchContext): Generator<Candidate> {
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

/** 5. Indentation-flexible: equal once each side loses its common indentation. */
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
    yield context.window(i, n)
  }
}

/**
 * 6. Escape-normalised: oldString over-escaped (\n, \t, \" ... for real characters), or the file holds
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

/** 7. Trimmed-boundary: oldString with whitespace around it that the file does not have there. */
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

/** 8. Context-aware: same line count, first and last lines equal, at least half the middle lines equal. */
export function* contextAware(context: MatchContext): Generator<Candidate> {
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

/**
 * 9. Multi-occurrence: every exact occurrence. opencode needs it to count occurrences for replaceAll;
 * here the exact matcher already yields them all, so it never finds what exact missed. It stays last
 * so the chain keeps opencode's shape.
 */
export function* multiOccurrence(context: MatchContext): Generator<Candidate> {
  yield* exact(context)
}
