/**
 * Typography for the edit matchers: the form of a line in which look-alike characters are one
 * character (curly and straight quotes, the dash family and the hyphen, an ellipsis and three dots,
 * the no-break spaces and a space) and whitespace runs are one space; where each character of that
 * form came from in the line; and where a line typed with other look-alikes differs from the file's
 * (for spelling.ts to put the file's characters back).
 */
import { restoreSpots, type Spelling, type Spot } from "./spelling.ts"

/** Characters a model types as their ASCII look-alike (or the reverse), with the look-alike. */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  "\u2018": "'", // ‘
  "\u2019": "'", // ’
  "\u201A": "'", // ‚
  "\u201B": "'", // ‛
  "\u2032": "'", // ′
  "\u201C": '"', // “
  "\u201D": '"', // ”
  "\u201E": '"', // „
  "\u201F": '"', // ‟
  "\u2033": '"', // ″
  "\u2010": "-", // ‐
  "\u2011": "-", // non-breaking hyphen
  "\u2012": "-", // ‒
  "\u2013": "-", // –
  "\u2014": "-", // —
  "\u2015": "-", // ―
  "\u2212": "-", // −
  "\u2026": "...", // …
}

/** A run of dashes (an em dash is typed as "-" or "--"): folded to one "-". */
const DASH = /[-\u2010-\u2015\u2212]/
/** Whitespace, the no-break spaces included (JavaScript's \s has them). */
const SPACE = /\s/

/** A line's folded form and, per character of it, the range of the line it came from. */
export interface FoldedLine {
  /** Trimmed, look-alikes folded, whitespace runs and dash runs as one character. */
  readonly text: string
  /** `from[k]`: offset in the line of the first character that produced `text[k]`. */
  readonly from: readonly number[]
  /** `to[k]`: offset in the line just past the characters that produced `text[k]`. */
  readonly to: readonly number[]
}

/**
 * Folds a line for comparison: trimmed, every look-alike as its ASCII form, every run of whitespace
 * (no-break spaces included) as one space, every run of dashes with the whitespace around it as one
 * "-" (an em dash is typed "-", "--" or " - "). Lines that fold to the same text differ only in what a
 * model cannot see or type reliably.
 */
export function foldLine(line: string): FoldedLine {
  let text = ""
  const from: number[] = []
  const to: number[] = []
  let start = 0
  let end = line.length
  while (start < end && SPACE.test(line[start]!)) start++
  while (end > start && SPACE.test(line[end - 1]!)) end--
  let i = start
  while (i < end) {
    const char = line[i]!
    let next = i + 1
    let piece: string
    if (SPACE.test(char) || DASH.test(char)) {
      // A run of whitespace is one space; a run of dashes with the whitespace around it is one dash
      // ("a — b", "a--b" and "a - b" fold alike).
      let dashes = false
      next = i
      while (next < end && (SPACE.test(line[next]!) || DASH.test(line[next]!))) {
        if (DASH.test(line[next]!)) dashes = true
        next++
      }
      piece = dashes ? "-" : " "
    } else piece = LOOK_ALIKES[char] ?? char
    for (const folded of piece) {
      text += folded
      from.push(i)
      to.push(next)
    }
    i = next
  }
  return { text, from, to }
}

const LOOK_ALIKE = /[\u2018-\u201F\u2032\u2033\u2010-\u2015\u2212\u2026]/g
/** Anything `foldCollapsed` has to change: a look-alike, a run of dashes, a space beside a dash. */
const NEEDS_FOLDING = /[\u2010-\u2015\u2018-\u201F\u2026\u2032\u2033\u2212]|--| -|- /

/**
 * `foldLine(line).text` for a line already trimmed with its whitespace runs as one space (the match
 * context's collapsed lines): look-alikes folded, dash runs (with the spaces around them) as one "-".
 * Most lines are returned as they are.
 */
export function foldCollapsed(text: string): string {
  if (!NEEDS_FOLDING.test(text)) return text
  return text.replace(LOOK_ALIKE, (char) => LOOK_ALIKES[char] ?? char).replace(/[ -]*-[ -]*/g, "-")
}

/** `foldLine(line).text` without the offsets, for the lines matchers compare. */
export function foldKey(line: string): string {
  return foldCollapsed(line.trim().replace(/\s+/g, " "))
}

/** Spaces and tabs: where both lines have only these, the difference is whitespace, not typography. */
const PLAIN_SPACE = /^[ \t]+$/

/**
 * The places where `oldLine` and `fileLine` (which fold to the same text) differ by typography: each a
 * range of `oldLine` and the file's characters for it. A run of hyphens of another length ("-" for the
 * file's "--") is one too; differences of plain whitespace (spaces, tabs) are not.
 */
export function typographySpots(oldLine: string, fileLine: string): Spot[] {
  const a = foldLine(oldLine)
  const b = foldLine(fileLine)
  if (a.text !== b.text) return []
  const spots: Spot[] = []
  let k = 0
  while (k < a.text.length) {
    // A segment ends where both lines end the pieces that produced it.
    let end = k
    while (end + 1 < a.text.length && (a.from[end + 1] === a.from[end] || b.from[end + 1] === b.from[end]))
      end++
    let oldFrom = a.from[k]!
    let oldTo = a.to[end]!
    let fileFrom = b.from[k]!
    let fileTo = b.to[end]!
    k = end + 1
    const [mine, theirs] = [oldLine.slice(oldFrom, oldTo), fileLine.slice(fileFrom, fileTo)]
    if (mine === theirs || (PLAIN_SPACE.test(mine) && PLAIN_SPACE.test(theirs))) continue
    // The same whitespace on both sides of a dash ("a — b" typed "a -- b") is not part of the spot.
    while (
      oldFrom < oldTo &&
      fileFrom < fileTo &&
      oldLine[oldFrom] === fileLine[fileFrom] &&
      SPACE.test(oldLine[oldFrom]!)
    ) {
      oldFrom++
      fileFrom++
    }
    while (
      oldTo > oldFrom &&
      fileTo > fileFrom &&
      oldLine[oldTo - 1] === fileLine[fileTo - 1] &&
      SPACE.test(oldLine[oldTo - 1]!)
    ) {
      oldTo--
      fileTo--
    }
    spots.push({ oldFrom, oldTo, file: fileLine.slice(fileFrom, fileTo) })
  }
  return spots
}

/** The file's typography, against oldString's look-alikes. */
export const TYPOGRAPHY: Spelling = {
  restore: (oldLine, fileLine, newLine) => restoreSpots(oldLine, newLine, typographySpots(oldLine, fileLine)),
  what: "typography",
}
