/**
 * Line endings for the edit tool: matching happens on LF text, and the file keeps its own convention.
 *
 * `replace()` (replace.ts) does all of this itself, so the tool passes the file's text as read (BOM
 * removed) and writes back what it gets: lines the edit did not touch keep their exact endings, even in
 * a file that mixes CRLF and LF, and new line breaks take the ending of the region they replace (or of
 * the file, when that region had none). The helpers are exported for the tool's diff, which is computed
 * on LF text.
 */

export type LineEnding = "\n" | "\r\n"

export interface LFText {
  /** The text with every CRLF turned into LF. A lone CR is left alone. */
  readonly text: string
  /** Offsets in `text` of the "\n"s that were "\r\n" in the original, ascending. */
  readonly crlfAt: readonly number[]
  /** How the file ends its lines, for new line breaks: see `detectLineEnding`. */
  readonly ending: LineEnding
}

/** Turns CRLF into LF. */
export function normaliseLineEndings(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text
}

/** Converts LF text to `ending`. The text must already be LF-only (see `normaliseLineEndings`). */
export function withLineEnding(text: string, ending: LineEnding): string {
  return ending === "\n" ? text : text.replaceAll("\n", "\r\n")
}

/**
 * The convention of a file: CRLF when at least as many of its line breaks are CRLF as bare LF (and it
 * has one), else LF. opencode uses CRLF as soon as one line has it; taking the majority keeps a mostly
 * LF file with one stray CRLF line an LF file.
 */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0
  let lf = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    if (at > 0 && text.charCodeAt(at - 1) === 13) crlf++
    else lf++
  }
  return crlf > 0 && crlf >= lf ? "\r\n" : "\n"
}

/** The LF form of `text`, with what is needed to map offsets back to the original. */
export function toLF(text: string): LFText {
  if (!text.includes("\r\n")) return { text, crlfAt: [], ending: "\n" }
  const crlfAt: number[] = []
  let lf = 0
  let removed = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    if (at > 0 && text.charCodeAt(at - 1) === 13) {
      removed++
      crlfAt.push(at - removed)
    } else lf++
  }
  const ending = crlfAt.length >= lf ? "\r\n" : "\n"
  return { text: text.replaceAll("\r\n", "\n"), crlfAt, ending }
}

/**
 * The offset in the original text of `offset` in the LF text. An offset that points at a "\n" that was
 * "\r\n" maps to its "\r", so a span ending before a line break leaves the whole CRLF outside it, and a
 * span that starts with a line break takes the whole CRLF.
 */
export function originalOffset(lf: LFText, offset: number): number {
  return offset + countBefore(lf.crlfAt, offset)
}

/**
 * The ending for new line breaks written into the LF span [start, end): the one most of the span's own
 * line breaks use, or the file's when the span has none (or as many of each).
 */
export function endingForSpan(lf: LFText, start: number, end: number): LineEnding {
  if (lf.crlfAt.length === 0) return "\n"
  let total = 0
  for (let at = lf.text.indexOf("\n", start); at !== -1 && at < end; at = lf.text.indexOf("\n", at + 1))
    total++
  const crlf = countBefore(lf.crlfAt, end) - countBefore(lf.crlfAt, start)
  if (total === 0 || crlf * 2 === total) return lf.ending
  return crlf * 2 > total ? "\r\n" : "\n"
}

/** How many values in the ascending `sorted` are below `value`. */
function countBefore(sorted: readonly number[], value: number): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (sorted[mid]! < value) low = mid + 1
    else high = mid
  }
  return low
}

/** Says so when newString's line breaks were written in another convention than it used. */
export function lineEndingNote(newString: string, endings: ReadonlySet<LineEnding>): string | undefined {
  const crlf = newString.includes("\r\n")
  const bareLF = /(^|[^\r])\n/.test(newString)
  if (endings.has("\r\n") && bareLF) return "newString's line breaks written as CRLF, as the file uses"
  if (endings.has("\n") && crlf) return "newString's line breaks written as LF, as the file uses"
  return undefined
}
