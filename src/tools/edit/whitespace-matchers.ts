/**
 * Matchers that compare whole lines ignoring whitespace: line-trimmed, whitespace-normalised,
 * indentation-flexible.
 */
import type { Candidate, MatchContext } from "./match-context.ts"
import { escapeRegExp, wantLines, windowsWhere } from "./match-search.ts"
import { collapseWhitespace } from "./normalise-text.ts"
import { indentOf, isBlank } from "./reindent.ts"

// 2. Line-trimmed: every line equal once trimmed.
export function* lineTrimmed(context: MatchContext): Generator<Candidate> {
  const want = wantLines(context, (line) => line.trim())
  if (!want) return
  for (const i of windowsWhere(context, context.trimmed, want)) yield context.window(i, want.length)
}

// 4. Whitespace-normalised: whitespace runs collapsed, inside lines too.
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

// 5. Indentation-flexible: equal once each side loses its common indentation.
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
