/**
 * Where a hunk of newString's change goes in the file's window (merge.ts): positions between oldString's
 * lines map to window positions through the alignment, and where the file has blank lines that
 * oldString has otherwise, which side of them a hunk belongs on, or that it cannot be told.
 */
import { indentOf, isBlank } from "./reindent.ts"
import { similarity } from "./similarity.ts"
import { foldKey } from "./typography.ts"

/** A change of oldString's lines [oldStart, oldEnd) into newString's lines [newStart, newEnd). */
export interface Hunk {
  readonly oldStart: number
  readonly oldEnd: number
  readonly newStart: number
  readonly newEnd: number
}

/**
 * Where a position between oldString's lines falls in the window: one place, or either side of blank
 * lines the file has there and oldString does not.
 */
export interface Place {
  /** The window position before those blank lines (just after the line above)... */
  readonly before: number
  /** ...and after them (equal to `before` when there are none). */
  readonly after: number
}

/**
 * For each position q between oldString's lines (0..n), where it falls in the window (0..k), or
 * undefined inside a run of blank lines that oldString has otherwise than the file.
 */
export function placesOf(fileLineOf: readonly number[], n: number, k: number): (Place | undefined)[] {
  const places: (Place | undefined)[] = []
  let left = -1 // the last line of oldString with a window line before q
  for (let q = 0; q <= n; q++) {
    let right = q
    while (right < n && fileLineOf[right]! < 0) right++
    const before = left >= 0 ? fileLineOf[left]! + 1 : 0
    const after = right < n ? fileLineOf[right]! : k
    if (right === q && (left === q - 1 || q === 0)) places.push({ before, after })
    else if (left === q - 1) places.push({ before, after: before })
    else if (right === q) places.push({ before: after, after })
    else places.push(undefined)
    if (q < n && fileLineOf[q]! >= 0) left = q
  }
  return places
}

type Range = { ok: true; start: number; end: number } | { ok: false; message: (hunk: Hunk) => string }

/**
 * A hunk's lines without the blank lines at its start (end) that stand for blank lines the file has
 * just before (after) it and oldString lacked: as many as the file has there, at most.
 */
export function withoutFileBlankLines(
  lines: readonly string[],
  range: { start: number; end: number },
  start: Place | undefined,
  end: Place | undefined,
): string[] {
  let from = 0
  let to = lines.length
  if (start && start.before < start.after && range.start === start.after) {
    const gap = start.after - start.before
    while (from < to && from < gap && isBlank(lines[from]!)) from++
  }
  if (end && end.before < end.after && range.end === end.before) {
    const gap = end.after - end.before
    while (to > from && lines.length - to < gap && isBlank(lines[to - 1]!)) to--
  }
  return lines.slice(from, to)
}

/** A line's first word, numbers as 0: "-", "0.", "#", "return"; lines of one kind start alike. */
function leadingToken(line: string): string {
  return (line.trim().split(/\s/, 1)[0] ?? "").replace(/\d+/g, "0")
}

/** An added line this similar to one neighbour, and at most `UNLIKE` to the other, goes with the first. */
const RESEMBLES = 0.5
const UNLIKE = 0.3

/**
 * Which kept line added lines belong with: the next one when the first added line is indented like it
 * and not like the previous one, the previous one in the opposite case; indented like both or neither,
 * the one it starts like (its first word) or plainly resembles; otherwise neither.
 */
export function attachedSide(hunk: Hunk, newLines: readonly string[]): "next" | "previous" | undefined {
  const added = newLines.slice(hunk.newStart, hunk.newEnd).find((line) => !isBlank(line))
  if (added === undefined) return undefined
  const indent = indentOf(added)
  const previous = newLines.slice(0, hunk.newStart).findLast((line) => !isBlank(line))
  const next = newLines.slice(hunk.newEnd).find((line) => !isBlank(line))
  const likePrevious = previous !== undefined && indentOf(previous) === indent
  const likeNext = next !== undefined && indentOf(next) === indent
  if (likeNext && !likePrevious) return "next"
  if (likePrevious && !likeNext) return "previous"
  // Indented like both (or neither): the one it starts like (another item of a list, say), or plainly
  // resembles.
  const lead = leadingToken(added)
  const leadsLikePrevious = previous !== undefined && leadingToken(previous) === lead
  const leadsLikeNext = next !== undefined && leadingToken(next) === lead
  if (leadsLikePrevious && !leadsLikeNext) return "previous"
  if (leadsLikeNext && !leadsLikePrevious) return "next"
  const resemblance = (line: string | undefined) =>
    line === undefined ? 0 : similarity(foldKey(added), foldKey(line))
  const [toPrevious, toNext] = [resemblance(previous), resemblance(next)]
  if (toPrevious >= RESEMBLES && toNext <= UNLIKE) return "previous"
  if (toNext >= RESEMBLES && toPrevious <= UNLIKE) return "next"
  return undefined
}

/** The window lines a hunk replaces (step 3 of `merge`, merge.ts). */
export function windowRange(
  hunk: Hunk,
  places: readonly (Place | undefined)[],
  n: number,
  side: "next" | "previous" | undefined,
): Range {
  const start = places[hunk.oldStart]
  const end = places[hunk.oldEnd]
  const blankLines = (what: string) => ({
    ok: false as const,
    message: () =>
      `oldString's blank lines differ from the file's where newString ${what}, so where its change goes is not certain. Copy the blank lines as they are in the file (the closest region below shows them), or leave them out of the change.`,
  })
  if (!start || !end) return blankLines("changes them")
  if (hunk.oldStart === hunk.oldEnd) {
    if (start.before === start.after) return { ok: true, start: start.before, end: start.before }
    if (side === "next") return { ok: true, start: start.after, end: start.after }
    if (side === "previous") return { ok: true, start: start.before, end: start.before }
    return blankLines("adds lines")
  }
  let from = start.after
  let to = end.before
  if (hunk.newStart === hunk.newEnd) {
    const startAmbiguous = start.before !== start.after
    const endAmbiguous = end.before !== end.after
    if (startAmbiguous && endAmbiguous) to = end.after
    else if (startAmbiguous && hunk.oldEnd === n) from = start.before
    else if (endAmbiguous && hunk.oldStart === 0) to = end.after
  }
  return { ok: true, start: from, end: Math.max(from, to) }
}
