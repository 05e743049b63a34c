// The diff the writing tools show: a unified diff for the person approving the change (indentation
// common to every line trimmed, so deep code stays readable) and the line counts the UI shows. Only the
// region the texts differ in is diffed, and a change too large to read or to compute is not diffed.

import { formatPatch, type StructuredPatch, structuredPatch } from "diff"
import { normalizeToLf, stripBom } from "../../../platform/fs/text.ts"

/** Unchanged lines shown around each change, unless the caller asks for another number. */
export const CONTEXT = 3
/** A changed region larger than this (old + new, in characters) is not diffed: the cost grows with its size. */
export const MAX_DIFF_CHARS = 4 * 1024 * 1024
/**
 * When at least this many lines must change (a rewrite rather than an edit), no diff is computed: the
 * Myers algorithm costs about (lines × changes), seconds for a rewritten 20,000-line file, and such a
 * diff is unreadable anyway.
 */
export const MAX_CHANGED_LINES = 1000
/** A diff that still takes longer than this is abandoned. */
export const DIFF_TIMEOUT_MS = 1000

export interface FileDiff {
  /** The unified diff, with the indentation common to all its lines removed (for display); empty when omitted. */
  readonly diff: string
  /** The same diff untrimmed: a patch that applies to the file. Absent when the diff was omitted. */
  readonly patch?: string
  readonly additions: number
  readonly deletions: number
  /** Why `diff` is empty although the texts differ (too large, too many changed lines, too slow). */
  readonly omitted?: string
}

export interface FileDiffInput {
  /** The file's name in the diff headers. */
  readonly file: string
  /** The destination's name, for a move. */
  readonly to?: string
  readonly before: string
  readonly after: string
  /** Unchanged lines shown around each change (default `CONTEXT`). */
  readonly context?: number
  /**
   * Compare line endings as they are. By default CRLF is read as LF, for tools that keep the file's own
   * endings when they write; a tool that writes the text as given wants a changed ending shown.
   */
  readonly exactLineEndings?: boolean
}

/**
 * The change from `before` to `after` as a unified diff named `file` (and `to`, for a move).
 *
 * 1. Both texts lose a leading BOM and (unless `exactLineEndings`) have CRLF read as LF, so a
 *    line-ending-only difference does not light up every line.
 * 2. Find the window worth diffing by comparing characters: whole lines from `context` lines before the
 *    first difference to `context` lines after the last (`diffWindow`), so an edit of a few lines in a
 *    20,000-line file diffs a few lines.
 * 3. No diff when the window is over `MAX_DIFF_CHARS`, or when its lines need more than
 *    `MAX_CHANGED_LINES` changes (`changedRegion`, linear): `omitted` says why, and additions and
 *    deletions are the lines between the first and last changed ones.
 * 4. One line diff (Myers, via the `diff` package) of the window, abandoned after `DIFF_TIMEOUT_MS`
 *    (falling back as in 3), gives the hunks, renumbered to the whole file; the patch text and the
 *    counts come from it, so the counts always agree with what is shown.
 * 5. `diff` is the patch with the leading whitespace every content line shares removed (`trimHunks`).
 */
export function fileDiff(input: FileDiffInput): FileDiff {
  const context = input.context ?? CONTEXT
  const text = (value: string) => (input.exactLineEndings ? stripBom(value) : normalizeToLf(stripBom(value)))
  const before = text(input.before)
  const after = text(input.after)

  const window = diffWindow(before, after, context)
  const oldPart = before.slice(window.start, before.length - window.tail)
  const newPart = after.slice(window.start, after.length - window.tail)
  const region = changedRegion(oldPart, newPart)
  const omit = (omitted: string): FileDiff => ({
    diff: "",
    additions: region.added,
    deletions: region.removed,
    omitted,
  })
  if (oldPart.length + newPart.length > MAX_DIFF_CHARS) return omit("the file is too large to diff")
  if (region.minimumChanges > MAX_CHANGED_LINES)
    return omit(`too many lines changed to show a diff (${region.removed} replaced by ${region.added})`)

  const structured = structuredPatch(
    input.file,
    input.to ?? input.file,
    oldPart,
    newPart,
    undefined,
    undefined,
    { context, timeout: DIFF_TIMEOUT_MS },
  )
  if (!structured) return omit("the diff took too long to compute")
  let additions = 0
  let deletions = 0
  for (const hunk of structured.hunks) {
    hunk.oldStart += window.line
    hunk.newStart += window.line
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++
      else if (line.startsWith("-")) deletions++
    }
  }
  return { diff: formatPatch(trimHunks(structured)), patch: formatPatch(structured), additions, deletions }
}

/**
 * The part of two texts worth diffing: whole lines, from `context` lines before the first line that
 * differs to `context` lines after the last one. `start` is its offset (the same in both texts), `line`
 * how many lines come before it, and `tail` how many characters both texts share after it. Identical
 * texts have an empty window. Found by comparing characters, a block at a time.
 */
function diffWindow(a: string, b: string, context: number): { start: number; line: number; tail: number } {
  const shorter = Math.min(a.length, b.length)
  const prefix = commonPrefix(a, b, shorter)
  if (prefix === a.length && prefix === b.length) return { start: a.length, line: 0, tail: 0 }
  const suffix = commonSuffix(a, b, shorter - prefix)

  // Back to the start of the line holding the first difference, then `context` lines more.
  let start = lineStart(a, prefix)
  for (let k = 0; k < context && start > 0; k++) start = lineStart(a, start - 1)
  // Forward to a point that starts a line in both texts, then `context` lines more.
  let tail = suffix
  const startsLine = (text: string, at: number) => at === 0 || text.charCodeAt(at - 1) === 10
  while (tail > 0 && !(startsLine(a, a.length - tail) && startsLine(b, b.length - tail))) {
    const next = a.indexOf("\n", a.length - tail)
    tail = next === -1 ? 0 : a.length - next - 1
  }
  for (let k = 0; k < context && tail > 0; k++) {
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

export interface ChangedRegion {
  /** Lines of the old text between the common first and last lines. */
  readonly removed: number
  /** Lines of the new text between them. */
  readonly added: number
  /** At least this many lines are added or removed by any diff: those of one side the other lacks. */
  readonly minimumChanges: number
}

/** The region two texts differ in, by whole lines, and how many changes it needs at least. Linear time. */
export function changedRegion(before: string, after: string): ChangedRegion {
  const old = before === "" ? [] : before.replace(/\n$/, "").split("\n")
  const next = after === "" ? [] : after.replace(/\n$/, "").split("\n")
  let start = 0
  while (start < old.length && start < next.length && old[start] === next[start]) start++
  let oldEnd = old.length
  let nextEnd = next.length
  while (oldEnd > start && nextEnd > start && old[oldEnd - 1] === next[nextEnd - 1]) {
    oldEnd--
    nextEnd--
  }
  const available = new Map<string, number>()
  for (let index = start; index < oldEnd; index++)
    available.set(old[index]!, (available.get(old[index]!) ?? 0) + 1)
  let shared = 0
  for (let index = start; index < nextEnd; index++) {
    const left = available.get(next[index]!)
    if (!left) continue
    shared++
    available.set(next[index]!, left - 1)
  }
  const removed = oldEnd - start
  const added = nextEnd - start
  return { removed, added, minimumChanges: removed - shared + (added - shared) }
}

/** Lines in a text: a last line without a newline counts, an empty text has none. */
export function countLines(text: string): number {
  if (text === "") return 0
  let count = 0
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++
  return text.endsWith("\n") ? count : count + 1
}

/**
 * The patch with the leading whitespace that every non-blank hunk line shares removed (after the
 * `+`/`-`/` ` marker), so deeply indented changes stay readable. Only an identical prefix is removed:
 * tabs and spaces are never traded for each other. Blank lines lose what they have of it.
 */
export function trimHunks(patch: StructuredPatch): StructuredPatch {
  const common = sharedIndent(patch.hunks.flatMap((hunk) => hunk.lines.filter(isContentLine)))
  if (!common) return patch
  return {
    ...patch,
    hunks: patch.hunks.map((hunk) => ({
      ...hunk,
      lines: hunk.lines.map((line) => (isContentLine(line) ? dedent(line, common) : line)),
    })),
  }
}

/**
 * `trimHunks` for a unified diff already formatted as text: headers, `@@` lines and `\ No newline`
 * markers are kept as they are; the content lines are the ones each `@@` header counts. A diff without
 * common indentation is returned as is.
 */
export function trimDiff(diff: string): string {
  const lines = diff.split("\n")
  const content = hunkLines(lines)
  const common = sharedIndent(lines.filter((_, index) => content.has(index)))
  if (!common) return diff
  return lines.map((line, index) => (content.has(index) ? dedent(line, common) : line)).join("\n")
}

/** A hunk line that shows text: kept, added or removed (not a `\ No newline at end of file` marker). */
function isContentLine(line: string): boolean {
  return line.startsWith("+") || line.startsWith("-") || line.startsWith(" ")
}

/** The indices of the content lines of a formatted diff, counted from each hunk's `@@` header. */
function hunkLines(lines: readonly string[]): Set<number> {
  const content = new Set<number>()
  let oldLeft = 0
  let newLeft = 0
  for (const [index, line] of lines.entries()) {
    const header = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line)
    if (header) {
      oldLeft = Number(header[1] ?? 1)
      newLeft = Number(header[2] ?? 1)
    } else if ((oldLeft > 0 || newLeft > 0) && isContentLine(line)) {
      content.add(index)
      if (line[0] !== "+") oldLeft--
      if (line[0] !== "-") newLeft--
    }
  }
  return content
}

/** The leading spaces and tabs every non-blank line shares after its marker; "" when there are none. */
function sharedIndent(lines: readonly string[]): string {
  let common: string | undefined
  for (const line of lines) {
    const body = line.slice(1)
    if (body.trim() === "") continue
    const indent = /^[ \t]*/.exec(body)![0]
    if (common === undefined) common = indent
    else {
      let k = 0
      while (k < common.length && k < indent.length && common[k] === indent[k]) k++
      common = common.slice(0, k)
    }
    if (common === "") return ""
  }
  return common ?? ""
}

/** The line with `common` removed after its marker; a blank line loses its whitespace. */
function dedent(line: string, common: string): string {
  const body = line.slice(1)
  return line[0] + (body.startsWith(common) ? body.slice(common.length) : body.trimStart())
}
