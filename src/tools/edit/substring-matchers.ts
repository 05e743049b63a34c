/**
 * Matchers that find oldString (or its trimmed text) as a substring of the file: exact,
 * trimmed-boundary, multi-occurrence.
 */
import type { Candidate, MatchContext } from "./match-context.ts"
import { occurrences } from "./match-search.ts"

// 1. Exact.
export function* exact(context: MatchContext): Generator<Candidate> {
  for (const at of occurrences(context.content, context.find))
    yield { start: at, end: at + context.find.length }
}

// 7. Trimmed-boundary: oldString with whitespace around it that the file does not have there.
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

// 9. Multi-occurrence: every exact occurrence. opencode needs it to count occurrences for replaceAll;
// here the exact matcher already yields them all, so it never finds what exact missed. It stays last
// so the chain keeps opencode's shape.
export function* multiOccurrence(context: MatchContext): Generator<Candidate> {
  yield* exact(context)
}
