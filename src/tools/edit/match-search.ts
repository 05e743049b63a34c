/** Search primitives the matchers share: substring occurrences and windows of equal lines. */
import type { MatchContext } from "./match-context.ts"

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}

/** Every start of `needle` in `text`, overlapping ones included. */
export function* occurrences(text: string, needle: string): Generator<number> {
  if (needle === "") return
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) yield at
}

/**
 * Starts of the windows of `want.length` lines where every line of `have` (the file's lines, mapped as
 * the matcher compares them) equals `want`'s. Linear in the file plus the work on windows whose most
 * selective line already matches.
 */
export function* windowsWhere(
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

/** Lines of oldString compared by a looser matcher: none when it is blank (it would match any blank line). */
export function wantLines(context: MatchContext, map: (line: string) => string): string[] | undefined {
  const want = context.findLines.map(map)
  return want.every((line) => line.trim() === "") ? undefined : want
}
