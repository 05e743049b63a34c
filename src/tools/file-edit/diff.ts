// The diff the writing tools show: a unified diff for the person approving the change (indentation
// common to every line trimmed, so deep code stays readable) and the line counts the UI shows.

import { formatPatch, structuredPatch } from "diff"
import { normalizeToLf, stripBom } from "../../fs/text.ts"

/** Unchanged lines shown around each change. */
const CONTEXT = 3

export interface FileDiff {
  /** The unified diff, with the indentation common to all its lines removed (for display). */
  readonly diff: string
  /** The same diff untrimmed: a patch that applies to the file. */
  readonly patch: string
  readonly additions: number
  readonly deletions: number
}

/**
 * The change from `before` to `after` as a unified diff named `file` (and `to`, for a move).
 *
 * 1. Both texts lose a leading BOM and have CRLF read as LF, so a line-ending-only difference does
 *    not light up every line (the tools keep the file's own endings when writing).
 * 2. One line diff (Myers, via the `diff` package) of the region between the lines both texts share
 *    at their start and end gives the hunks, renumbered to the whole file; the patch text and the
 *    counts come from it, so the counts always agree with what is shown.
 * 3. `diff` is the patch with the leading whitespace every content line shares removed (`trimDiff`).
 */
export function fileDiff(input: { file: string; to?: string; before: string; after: string }): FileDiff {
  const before = normalizeToLf(stripBom(input.before))
  const after = normalizeToLf(stripBom(input.after))
  const region = changedRegion(before, after)
  const structured = structuredPatch(
    input.file,
    input.to ?? input.file,
    before.slice(region.start, before.length - region.tail),
    after.slice(region.start, after.length - region.tail),
    undefined,
    undefined,
    { context: CONTEXT },
  )
  let additions = 0
  let deletions = 0
  for (const hunk of structured.hunks) {
    hunk.oldStart += region.line
    hunk.newStart += region.line
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++
      else if (line.startsWith("-")) deletions++
    }
  }
  const patch = formatPatch(structured)
  return { diff: trimDiff(patch), patch, additions, deletions }
}

/**
 * The part of two texts worth diffing: whole lines, from `CONTEXT` lines before the first line that
 * differs to `CONTEXT` lines after the last one. `start` is its offset (the same in both texts), `line`
 * how many lines come before it, and `tail` how many characters both texts share after it. Found by
 * comparing characters, so an edit of a few lines in a 20,000-line file diffs a few lines.
 */
function changedRegion(a: string, b: string): { start: number; line: number; tail: number } {
  const shorter = Math.min(a.length, b.length)
  const prefix = commonPrefix(a, b, shorter)
  if (prefix === a.length && prefix === b.length) return { start: 0, line: 0, tail: 0 }
  const suffix = commonSuffix(a, b, shorter - prefix)

  // Back to the start of the line holding the first difference, then CONTEXT lines more.
  let start = lineStart(a, prefix)
  for (let k = 0; k < CONTEXT && start > 0; k++) start = lineStart(a, start - 1)
  // Forward to a point that starts a line in both texts, then CONTEXT lines more.
  let tail = suffix
  const startsLine = (text: string, at: number) => at === 0 || text.charCodeAt(at - 1) === 10
  while (tail > 0 && !(startsLine(a, a.length - tail) && startsLine(b, b.length - tail))) {
    const next = a.indexOf("\n", a.length - tail)
    tail = next === -1 ? 0 : a.length - next - 1
  }
  for (let k = 0; k < CONTEXT && tail > 0; k++) {
    const next = a.indexOf("\n", a.length - tail)
    tail = next === -1 ? 0 : a.length - next - 1
  }
  let line = 0
  for (let at = a.indexOf("\n"); at !== -1 && at < start; at = a.indexOf("\n", at + 1)) line++
  return { start, line, tail }
}

/** Compared a block at a time first: whole-substring equality is far faster than a character loop. */
const BLOCK = 4096

/** How many characters `a` and `b` share at their start (at most `limit`). */
function commonPrefix(a: string, b: string, limit: number): number {
  let n = 0
  while (n + BLOCK <= limit && a.slice(n, n + BLOCK) === b.slice(n, n + BLOCK)) n += BLOCK
  while (n < limit && a.charCodeAt(n) === b.charCodeAt(n)) n++
  return n
}

/** How many characters `a` and `b` share at their end (at most `limit`). */
function commonSuffix(a: string, b: string, limit: number): number {
  let n = 0
  while (
    n + BLOCK <= limit &&
    a.slice(a.length - n - BLOCK, a.length - n) === b.slice(b.length - n - BLOCK, b.length - n)
  )
    n += BLOCK
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++
  return n
}

/** The offset where the line holding offset `at` starts. */
function lineStart(text: string, at: number): number {
  return at <= 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1
}

/** A content line of a unified diff: kept, added or removed, but not a `---`/`+++` file header. */
function isContentLine(line: string): boolean {
  const first = line[0]
  if (first === " ") return true
  if (first !== "+" && first !== "-") return false
  return !line.startsWith("+++ ") && !line.startsWith("--- ")
}

/**
 * Removes the leading whitespace that every non-blank content line of a unified diff shares (the
 * exact same characters, so a tab is never traded for spaces). Blank lines lose what they have of it.
 * Headers and `@@` lines are kept as they are. A diff without common indentation is returned as is.
 */
export function trimDiff(diff: string): string {
  const lines = diff.split("\n")
  let common: string | undefined
  for (const line of lines) {
    if (!isContentLine(line)) continue
    const body = line.slice(1)
    if (body.trim() === "") continue
    const indent = body.slice(0, body.length - body.trimStart().length)
    if (common === undefined) common = indent
    else {
      let k = 0
      while (k < common.length && k < indent.length && common[k] === indent[k]) k++
      common = common.slice(0, k)
    }
    if (common === "") return diff
  }
  if (!common) return diff
  const width = common.length
  return lines
    .map((line) => {
      if (!isContentLine(line)) return line
      const body = line.slice(1)
      return line[0] + (body.startsWith(common) ? body.slice(width) : body.trimStart())
    })
    .join("\n")
}
