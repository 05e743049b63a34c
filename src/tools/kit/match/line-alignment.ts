/**
 * Aligning oldString's lines with a window of the file's lines when they differ only in what the model
 * could not have meant differently: typography and whitespace inside each line (lines compared in
 * their folded form, typography.ts), blank lines between them, and a first (or last) line that is only
 * the end (or start) of the file's line. The matchers built on this are in matchers.ts; what newString
 * becomes in such a window is merge.ts's job.
 */
import type { Alignment, Candidate, MatchContext } from "./match-context.ts"
import { foldLine } from "./typography.ts"

/** How far a run of blank lines in oldString may be from the file's: one dropped, added, or two as one. */
export const MAX_BLANK_LINE_DIFFERENCE = 2

export interface AlignOptions {
  /** Runs of blank lines may be longer or shorter than the file's (by up to two lines). */
  readonly blankLines: boolean
  /**
   * oldString's first line may be the end of the file's line, and its last line the start of one, each
   * cut at a word boundary; at least one whole non-blank line must be between them.
   */
  readonly partial: boolean
}

const WORD = /[\p{L}\p{N}_$]/u

/**
 * Every window of the file that oldString's lines align with, as candidates carrying their alignment.
 * Lines are compared folded (`foldLine`); oldString's blank lines must be blank lines of the file (in
 * equal runs unless `blankLines`), and its other lines non-blank lines, in order, none left out.
 */
export function* alignedWindows(context: MatchContext, options: AlignOptions): Generator<Candidate> {
  const want = context.findLines.map((line) => foldLine(line).text)
  const firstContent = want.findIndex((key) => key !== "")
  if (firstContent === -1) return
  const lastContent = want.findLastIndex((key) => key !== "")
  const partialFirst = options.partial && firstContent === 0 && want.length > 1
  const partialLast = options.partial && lastContent === want.length - 1 && lastContent > 0
  // A partial line needs another line of oldString to pin it (checked as the walk matches whole lines).
  if (options.partial && (!partialFirst || want.filter((key) => key !== "").length < 2)) {
    if (!partialLast || want.filter((key) => key !== "").length < 2) return
  }
  const keys = context.folded
  const head = want[firstContent]!
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const column = partialFirst ? suffixColumn(context.lines[i]!, key, head) : key === head ? 0 : undefined
    if (column === undefined) continue
    const candidate = walk(context, want, i, column, options, partialLast)
    if (candidate) yield candidate
  }
}

/**
 * The column of `line` where its folded form ends with `head` at a word boundary (a proper suffix),
 * 0 when the whole line folds to `head`, undefined otherwise.
 */
function suffixColumn(line: string, key: string, head: string): number | undefined {
  if (key === head) return 0
  if (key.length <= head.length || !key.endsWith(head)) return undefined
  const at = key.length - head.length
  if (WORD.test(key[at - 1]!) && WORD.test(head[0]!)) return undefined
  return foldLine(line).from[at]
}

/** The column of `line` just past its folded prefix `tail` at a word boundary; undefined otherwise. */
function prefixColumn(line: string, key: string, tail: string): number | undefined {
  if (key === tail) return line.length
  if (key.length <= tail.length || !key.startsWith(tail)) return undefined
  if (WORD.test(key[tail.length]!) && WORD.test(tail[tail.length - 1]!)) return undefined
  return foldLine(line).to[tail.length - 1]
}

/**
 * Walks oldString's lines down the file from line `at` (where its first non-blank line is), pairing
 * non-blank lines with non-blank lines and runs of blank lines with runs of blank lines. Undefined when
 * a line does not match or a run of blank lines differs more than allowed.
 */
function walk(
  context: MatchContext,
  want: readonly string[],
  at: number,
  firstColumn: number,
  options: AlignOptions,
  partialLast: boolean,
): Candidate | undefined {
  const keys = context.folded
  const n = want.length
  const lineOf = new Array<number>(n).fill(-1)
  const firstContent = want.findIndex((key) => key !== "")
  // Leading blank lines of oldString: as many of the blank lines just above as there are.
  let above = 0
  while (above < firstContent && at - above - 1 >= 0 && keys[at - above - 1] === "") above++
  if (above < firstContent && !options.blankLines) return undefined
  const start = at - above
  if (above === firstContent) for (let k = 0; k < firstContent; k++) lineOf[k] = k
  let o = firstContent
  let f = at
  let lastColumn: number | undefined
  let whole = firstColumn === 0 ? 1 : 0
  while (o < n) {
    if (want[o] === "") {
      // A run of blank lines in oldString against the file's run here.
      let runEnd = o
      while (runEnd < n && want[runEnd] === "") runEnd++
      let fileEnd = f
      while (fileEnd < keys.length && keys[fileEnd] === "") fileEnd++
      const mine = runEnd - o
      let theirs = fileEnd - f
      if (runEnd === n) theirs = Math.min(theirs, mine) // trailing: take only as many as oldString has
      if (theirs !== mine) {
        if (!options.blankLines || Math.abs(theirs - mine) > MAX_BLANK_LINE_DIFFERENCE) return undefined
      } else for (let k = 0; k < mine; k++) lineOf[o + k] = f + k - start
      o = runEnd
      f += theirs
      continue
    }
    if (f >= keys.length) return undefined
    if (keys[f] === "") {
      // Blank lines the file has and oldString does not.
      let fileEnd = f
      while (fileEnd < keys.length && keys[fileEnd] === "") fileEnd++
      if (!options.blankLines || fileEnd - f > MAX_BLANK_LINE_DIFFERENCE || o === firstContent)
        return undefined
      f = fileEnd
      continue
    }
    if (o === n - 1 && partialLast && keys[f] !== want[o]) {
      lastColumn = prefixColumn(context.lines[f]!, keys[f]!, want[o]!)
      if (lastColumn === undefined) return undefined
    } else if (o !== firstContent) {
      if (keys[f] !== want[o]) return undefined
      whole++
    }
    lineOf[o] = f - start
    o++
    f++
  }
  if (whole === 0) return undefined
  const count = f - start
  const window = context.window(start, count)
  const partial = firstColumn > 0 || (lastColumn !== undefined && lastColumn < context.lines[f - 1]!.length)
  const begin = context.starts[start]! + firstColumn
  const end = lastColumn === undefined ? window.end : context.starts[f - 1]! + lastColumn
  const alignment: Alignment = {
    first: start,
    count,
    fileLineOf: lineOf,
    firstColumn,
    ...(lastColumn === undefined ? {} : { lastColumn }),
  }
  return {
    start: begin,
    end,
    ...(partial ? {} : { lines: { first: start, count } }),
    ...(window.missingNewline && lastColumn === undefined ? { missingNewline: true } : {}),
    alignment,
  }
}
