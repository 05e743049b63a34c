/**
 * What a window of the file becomes when oldString matched it only once aligned (line-alignment.ts):
 * newString's change, carried from oldString's lines to the file's.
 *
 * The model wrote newString as a change of oldString, its copy of the window. The change is the line
 * diff oldString → newString; carried to the window, lines newString leaves as they were keep the
 * file's text (typography, whitespace, blank lines), and the lines it changes or adds are newString's,
 * in the file's indentation and with the file's typography wherever the change did not touch it. Where
 * the change touches blank lines that oldString has otherwise than the file, it cannot be carried
 * faithfully: the merge is refused.
 */
import { diffArrays } from "diff"
import { attachedSide, type Hunk, placesOf, windowRange, withoutFileBlankLines } from "./hunk-places.ts"
import { type IndentUnit, indentOf, isBlank, reindent } from "./reindent.ts"
import { similarity } from "./similarity.ts"
import type { Spelling } from "./spelling.ts"
import { foldKey, TYPOGRAPHY } from "./typography.ts"

export interface MergeInput {
  /** oldString's lines. */
  readonly oldLines: readonly string[]
  /** newString's lines. */
  readonly newLines: readonly string[]
  /** The window's lines; the first starts at the alignment's first column, the last ends at its last. */
  readonly fileLines: readonly string[]
  /** Per line of oldString, the window line it stands for, or -1 (see `Alignment.fileLineOf`). */
  readonly fileLineOf: readonly number[]
  /** The window starts inside its first line: what is written there continues that line. */
  readonly partialFirst: boolean
  /** The file's indentation unit, for re-indenting added lines. */
  readonly indentUnit?: IndentUnit
  /** How oldString may spell the file's text otherwise (default: typography). */
  readonly spelling?: Spelling
}

export type MergeResult =
  | {
      readonly ok: true
      readonly lines: string[]
      /** What was reconciled, for the result's normalisation text. */
      readonly notes: string[]
    }
  | { readonly ok: false; readonly message: string }

/** Lines paired by a hunk are taken for the same line changed when at least this similar (folded). */
const PAIR_SIMILARITY = 0.5
/** How many old lines past the last pair a new line is compared with (keeps a large rewrite linear). */
const PAIR_LOOKAHEAD = 32

/**
 * Merges newString's change into the window.
 *
 * 1. The diff of oldString's lines to newString's, as hunks (unchanged lines between them).
 * 2. What each line of newString becomes (`lineTexts`): a kept line is the file's; a changed line,
 *    paired with the old line it changes, takes that line's file indentation when the model kept its
 *    indentation, and the file's spelling (spelling.ts: typography, escapes) where its text is
 *    unchanged, or the file's whole text when only its indentation changed; an added line takes the
 *    indentation of the nearest kept or changed line next to it that the model indented alike, else
 *    newString re-indented as a whole (reindent.ts).
 * 3. Each hunk's place in the window (`windowRange`): positions between oldString's lines map to window
 *    positions through the alignment. A position inside a run of blank lines that oldString has
 *    otherwise than the file cannot be placed: refused. Where the file has blank lines oldString lacks,
 *    a deletion keeps them unless it deletes through the end of oldString on that side, added lines go
 *    with the neighbour they belong with (`attachedSide`) or are refused, and blank lines added there
 *    are the file's own.
 * 4. Outside the hunks the window's lines stay as they are.
 */
export function merge(input: MergeInput): MergeResult {
  const { oldLines, newLines, fileLines, fileLineOf } = input
  const spelling = input.spelling ?? TYPOGRAPHY
  const hunks = diffHunks(oldLines, newLines)
  const places = placesOf(fileLineOf, oldLines.length, fileLines.length)
  const reindented = reindentedLines(input)
  const { texts, restored } = lineTexts(input, hunks, reindented.lines, spelling)

  const out: string[] = []
  let at = 0
  for (const hunk of hunks) {
    const place = places[hunk.oldStart]
    const added = newLines.slice(hunk.newStart, hunk.newEnd)
    if (hunk.oldStart === hunk.oldEnd && place && place.before < place.after && added.every(isBlank)) {
      // Blank lines added where the file has blank lines oldString lacked: the file has them already
      // (as many as were added, at least).
      const missing = Math.max(0, added.length - (place.after - place.before))
      out.push(...fileLines.slice(at, place.after), ...added.slice(0, missing))
      at = place.after
      continue
    }
    const range = windowRange(hunk, places, oldLines.length, attachedSide(hunk, newLines))
    if (!range.ok) return { ok: false, message: range.message(hunk) }
    out.push(...fileLines.slice(at, range.start))
    out.push(
      ...withoutFileBlankLines(texts.slice(hunk.newStart, hunk.newEnd), range, place, places[hunk.oldEnd]),
    )
    at = range.end
  }
  out.push(...fileLines.slice(at))
  if (input.partialFirst && out.length > 0 && out[0] !== fileLines[0]) out[0] = out[0]!.trimStart()

  const notes: string[] = []
  if (reindented.note) notes.push(reindented.note)
  if (restored) notes.push(`the file's ${spelling.what} kept where newString did not change the text`)
  if (
    fileLineOf.some((line, k) => line < 0 && isBlank(oldLines[k]!)) ||
    extraBlankLines(fileLineOf, fileLines)
  )
    notes.push("the file's blank lines were kept where oldString's differ")
  return { ok: true, lines: out, notes }
}

/** Step 2 of `merge`: the text of each line of newString, and whether any took the file's spelling back. */
function lineTexts(
  input: MergeInput,
  hunks: readonly Hunk[],
  reindented: readonly string[],
  spelling: Spelling,
): { texts: string[]; restored: boolean } {
  const { oldLines, newLines, fileLines, fileLineOf } = input
  // Per line of newString: the old line it keeps or changes (-1: added).
  const sourceOf = new Array<number>(newLines.length).fill(-1)
  const unchanged = new Array<boolean>(newLines.length).fill(false)
  for (const [o, n] of equalPairs(oldLines, newLines, hunks)) {
    sourceOf[n] = o
    unchanged[n] = true
  }
  for (const hunk of hunks) pairHunk(hunk, oldLines, newLines, fileLineOf, sourceOf)

  const indentOut = new Array<string | undefined>(newLines.length)
  const texts = new Array<string>(newLines.length)
  let restored = false
  for (let n = 0; n < newLines.length; n++) {
    const line = newLines[n]!
    const o = sourceOf[n]!
    const window = o >= 0 ? fileLineOf[o]! : -1
    if (unchanged[n]) {
      if (window >= 0) indentOut[n] = indentOf(fileLines[window]!)
      texts[n] = window >= 0 ? fileLines[window]! : line
      continue
    }
    if (isBlank(line)) {
      texts[n] = line
      continue
    }
    if (window < 0) continue // added: indented below, from its neighbours
    const oldLine = oldLines[o]!
    const fileLine = fileLines[window]!
    const indent = indentOf(line) === indentOf(oldLine) ? indentOf(fileLine) : indentOf(reindented[n]!)
    const content = contentOf(line)
    let text: string
    if (content === contentOf(oldLine)) text = contentOf(fileLine)
    else {
      text = spelling.restore(
        contentOf(oldLine),
        contentOf(fileLine),
        withoutInventedTrail(line, oldLine, fileLine),
      )
      if (text !== content) restored = true
    }
    indentOut[n] = indent
    texts[n] = indent + text
  }
  for (let n = 0; n < newLines.length; n++) {
    if (texts[n] !== undefined) continue
    const indent = neighbourIndent(n, newLines, indentOut)
    texts[n] = indent === undefined ? reindented[n]! : indent + contentOf(newLines[n]!)
  }
  return { texts, restored }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k)
}

/**
 * A changed line's text without the trailing whitespace the model gave its copy of the line and the
 * file's line does not have (and kept when it changed the line).
 */
function withoutInventedTrail(line: string, oldLine: string, fileLine: string): string {
  const trail = oldLine.slice(oldLine.trimEnd().length)
  const content = contentOf(line)
  if (trail === "" || fileLine.trimEnd() !== fileLine || !content.endsWith(trail)) return content
  return content.trimEnd()
}

function contentOf(line: string): string {
  return line.slice(indentOf(line).length)
}

/** Lines added and removed past which the diff stops looking for lines newString kept (a rewrite). */
const MAX_LINE_EDITS = 2000

/** The line diff of oldString to newString as hunks, in order; a rewrite is one hunk. */
function diffHunks(oldLines: readonly string[], newLines: readonly string[]): Hunk[] {
  const changes = diffArrays(oldLines as string[], newLines as string[], { maxEditLength: MAX_LINE_EDITS })
  if (!changes) return [{ oldStart: 0, oldEnd: oldLines.length, newStart: 0, newEnd: newLines.length }]
  const hunks: Hunk[] = []
  let o = 0
  let n = 0
  let open: { oldStart: number; newStart: number } | undefined
  for (const change of changes) {
    const count = change.count ?? change.value.length
    if (!change.added && !change.removed) {
      if (open) hunks.push({ ...open, oldEnd: o, newEnd: n })
      open = undefined
      o += count
      n += count
      continue
    }
    open ??= { oldStart: o, newStart: n }
    if (change.added) n += count
    else o += count
  }
  if (open) hunks.push({ ...open, oldEnd: o, newEnd: n })
  return hunks
}

/** The (old, new) line pairs the diff keeps unchanged: everything outside the hunks, in order. */
function* equalPairs(
  oldLines: readonly string[],
  newLines: readonly string[],
  hunks: readonly Hunk[],
): Generator<[number, number]> {
  let o = 0
  let n = 0
  for (const hunk of [
    ...hunks,
    { oldStart: oldLines.length, newStart: newLines.length, oldEnd: 0, newEnd: 0 },
  ]) {
    while (o < hunk.oldStart && n < hunk.newStart) yield [o++, n++]
    o = hunk.oldEnd
    n = hunk.newEnd
  }
}

/**
 * Pairs each new line of a hunk with the old line of the hunk it changes: line for line when the hunk
 * replaces as many non-blank lines as it writes, otherwise the most similar one, in order.
 */
function pairHunk(
  hunk: Hunk,
  oldLines: readonly string[],
  newLines: readonly string[],
  fileLineOf: readonly number[],
  sourceOf: number[],
): void {
  const olds = range(hunk.oldStart, hunk.oldEnd).filter((o) => !isBlank(oldLines[o]!))
  const news = range(hunk.newStart, hunk.newEnd).filter((n) => !isBlank(newLines[n]!))
  if (olds.length === news.length) {
    news.forEach((n, k) => {
      if (fileLineOf[olds[k]!]! >= 0) sourceOf[n] = olds[k]!
    })
    return
  }
  let next = hunk.oldStart
  for (let n = hunk.newStart; n < hunk.newEnd; n++) {
    const want = foldKey(newLines[n]!)
    if (want === "") continue
    let best = -1
    let bestScore = PAIR_SIMILARITY
    for (let o = next; o < Math.min(hunk.oldEnd, next + PAIR_LOOKAHEAD); o++) {
      if (fileLineOf[o]! < 0) continue
      const have = foldKey(oldLines[o]!)
      if (have === "") continue
      const score = similarity(want, have)
      if (score >= bestScore && (best === -1 || score > bestScore)) {
        best = o
        bestScore = score
      }
    }
    if (best === -1) continue
    sourceOf[n] = best
    next = best + 1
  }
}

/**
 * The indentation of the kept or changed line nearest to added line `n` (the next one first) when the
 * model indented the two alike; undefined when neither neighbour was.
 */
function neighbourIndent(
  n: number,
  newLines: readonly string[],
  indentOut: readonly (string | undefined)[],
): string | undefined {
  const indent = indentOf(newLines[n]!)
  const alike = (m: number) =>
    indentOut[m] !== undefined && !isBlank(newLines[m]!) && indentOf(newLines[m]!) === indent
  for (let m = n + 1; m < newLines.length; m++) {
    if (indentOut[m] === undefined || isBlank(newLines[m]!)) continue
    if (alike(m)) return indentOut[m]!
    break
  }
  for (let m = n - 1; m >= 0; m--) {
    if (indentOut[m] === undefined || isBlank(newLines[m]!)) continue
    if (alike(m)) return indentOut[m]!
    break
  }
  return undefined
}

/** Whether the window has blank lines no line of oldString stands for. */
function extraBlankLines(fileLineOf: readonly number[], fileLines: readonly string[]): boolean {
  const used = new Set(fileLineOf)
  return fileLines.some((line, w) => isBlank(line) && !used.has(w))
}

/** Columns of an indentation, a tab counting four. */
function columns(indent: string): number {
  let width = 0
  for (const char of indent) width += char === "\t" ? 4 : 1
  return width
}

/**
 * Whether oldString's first line was copied without its indentation (a selection that began at its
 * first character): it has none, the file's line has some, and the other lines all sit at one distance
 * from the file's that the first line does not.
 */
function firstCopiedWithoutIndent(input: MergeInput): boolean {
  const { oldLines, fileLines, fileLineOf } = input
  if (indentOf(oldLines[0]!) !== "" || fileLineOf[0]! < 0) return false
  const first = columns(indentOf(fileLines[fileLineOf[0]!]!))
  if (first === 0) return false
  const others = new Set<number>()
  fileLineOf.forEach((window, o) => {
    if (o > 0 && window >= 0 && !isBlank(oldLines[o]!))
      others.add(columns(indentOf(fileLines[window]!)) - columns(indentOf(oldLines[o]!)))
  })
  return others.size === 1 && !others.has(first)
}

/**
 * newString re-indented to the window as a whole, for the lines that get no indentation from a line of
 * the file: the pairs it measures are oldString's non-blank lines and their window lines, without the
 * first when it is partial or was copied without its indentation (the others have some).
 */
function reindentedLines(input: MergeInput): { lines: readonly string[]; note?: string } {
  const { oldLines, newLines, fileLines, fileLineOf } = input
  const skipFirst = input.partialFirst || firstCopiedWithoutIndent(input)
  const blankFirst = <T extends string>(lines: readonly T[]) => (skipFirst ? ["", ...lines.slice(1)] : lines)
  const old = blankFirst(oldLines)
  const matched =
    skipFirst && fileLineOf[0]! >= 0
      ? fileLines.map((line, w) => (w === fileLineOf[0] ? "" : line))
      : fileLines
  const fresh =
    skipFirst && (input.partialFirst || indentOf(newLines[0] ?? "") === indentOf(oldLines[0]!))
      ? blankFirst(newLines)
      : newLines
  const pairs: (readonly [number, number])[] = []
  fileLineOf.forEach((window, o) => {
    if (window >= 0 && !isBlank(old[o]!)) pairs.push([o, window])
  })
  const result = reindent({
    newString: fresh.join("\n"),
    oldLines: old,
    matchedLines: matched,
    pairs,
    ...(input.indentUnit ? { fileUnit: input.indentUnit } : {}),
  })
  if (!result) return { lines: newLines }
  const lines = result.text.split("\n")
  if (fresh !== newLines) lines[0] = newLines[0]!
  return { lines, note: result.note }
}
