/**
 * Matchers that anchor on oldString's first and last lines: block-anchor (similar middle lines) and
 * context-aware (mostly equal middle lines).
 */
import type { Candidate, MatchContext } from "./match-context.ts"
import { bigrams, dice, similarity, similarityBound } from "./similarity.ts"

/** Least middle-line similarity a block-anchor candidate needs (opencode 1.18). */
export const BLOCK_ANCHOR_THRESHOLD = 0.65

// 3. Block-anchor: first and last lines as anchors, middle lines similar enough.
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

// 8. Context-aware: same line count, first and last lines equal, at least half the middle lines equal.
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
