import { formatPatch, type StructuredPatch, structuredPatch } from "diff"

/** Texts larger than this (old + new, in characters) are not diffed: the cost grows with their size. */
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
  /** A unified diff, with the indentation common to its lines removed; empty when it was not computed. */
  readonly diff: string
  readonly additions: number
  readonly deletions: number
  /** Why `diff` is empty although the texts differ (too large, too slow). */
  readonly omitted?: string
}

/**
 * The unified diff of `before` → `after` for `path`, trimmed, with its line counts.
 *
 * 1. Texts over `MAX_DIFF_CHARS` together are not diffed: additions and deletions are then the line
 *    counts of the new and old text, and `omitted` says why.
 * 2. Find the changed region (between the common first and last lines) and a lower bound of the lines
 *    that must change in it (those of one side that the other lacks). Over `MAX_CHANGED_LINES`: no
 *    diff; additions and deletions are the lines of the region.
 * 3. Otherwise diff line by line (abandoned after `DIFF_TIMEOUT_MS`, falling back as in 2).
 * 4. Count the added and removed lines, remove the indentation every hunk line shares (`trimHunks`),
 *    and format the patch.
 */
export function fileDiff(path: string, before: string, after: string): FileDiff {
  if (before.length + after.length > MAX_DIFF_CHARS)
    return {
      diff: "",
      additions: countLines(after),
      deletions: countLines(before),
      omitted: "the file is too large to diff",
    }
  const region = changedRegion(before, after)
  if (region.minimumChanges > MAX_CHANGED_LINES)
    return {
      diff: "",
      additions: region.added,
      deletions: region.removed,
      omitted: `too many lines changed to show a diff (${region.removed} replaced by ${region.added})`,
    }
  const patch = structuredPatch(path, path, before, after, undefined, undefined, { timeout: DIFF_TIMEOUT_MS })
  if (!patch)
    return {
      diff: "",
      additions: region.added,
      deletions: region.removed,
      omitted: "the diff took too long to compute",
    }
  let additions = 0
  let deletions = 0
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++
      else if (line.startsWith("-")) deletions++
    }
  }
  return { diff: formatPatch(trimHunks(patch)), additions, deletions }
}

/**
 * The patch with the leading whitespace that every non-blank hunk line shares removed (after the
 * `+`/`-`/` ` marker), so deeply indented changes stay readable. Only an identical prefix is removed:
 * tabs and spaces are never traded for each other.
 */
export function trimHunks(patch: StructuredPatch): StructuredPatch {
  let common: string | undefined
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (!isContent(line)) continue
      const text = line.slice(1)
      if (text.trim() === "") continue
      const indent = /^[ \t]*/.exec(text)![0]
      common = common === undefined ? indent : sharedPrefix(common, indent)
      if (common === "") return patch
    }
  }
  if (!common) return patch
  const cut = common.length
  return {
    ...patch,
    hunks: patch.hunks.map((hunk) => ({
      ...hunk,
      lines: hunk.lines.map((line) =>
        isContent(line) ? line[0] + line.slice(1 + Math.min(cut, leading(line))) : line,
      ),
    })),
  }
}

function isContent(line: string): boolean {
  return line.startsWith("+") || line.startsWith("-") || line.startsWith(" ")
}

/** Whitespace characters at the start of a hunk line's text (after its marker). */
function leading(line: string): number {
  return /^[ \t]*/.exec(line.slice(1))![0].length
}

function sharedPrefix(a: string, b: string): string {
  let index = 0
  while (index < a.length && index < b.length && a[index] === b[index]) index++
  return a.slice(0, index)
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
