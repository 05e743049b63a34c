/**
 * Keeping the file's own spelling of text the model retyped: where a line of oldString says the same
 * as the file's line in other characters (typography.ts: look-alike quotes, dashes, ellipses, spaces;
 * or escapes: `"` for the file's `\"`), the places are spots; a changed line takes the file's
 * characters back at every spot it did not change.
 */
import { diffChars } from "diff"

/** A place where a line of oldString spells the file's text otherwise. */
export interface Spot {
  /** Range in oldString's line. */
  readonly oldFrom: number
  readonly oldTo: number
  /** What the file has there. */
  readonly file: string
}

/** One way oldString may spell the file's text otherwise. */
export interface Spelling {
  /**
   * `newLine`, the model's change of `oldLine` (its copy of `fileLine`), spelled as the file spells it
   * wherever the change did not touch the text.
   */
  readonly restore: (oldLine: string, fileLine: string, newLine: string) => string
  /** What the file keeps, for the result's note: "typography", "escapes". */
  readonly what: string
}

/** Lines longer than this are not compared character by character (a minified line). */
const MAX_LENGTH = 2000
/** Characters added and removed past which a line counts as rewritten: nothing is restored. */
const MAX_CHARACTER_EDITS = 400

/**
 * `newLine` (the model's change of `oldLine`) with the file's characters back at every spot inside a
 * run of characters newLine kept from oldLine; the rest of newLine is as written.
 */
export function restoreSpots(oldLine: string, newLine: string, spots: readonly Spot[]): string {
  if (spots.length === 0 || oldLine.length > MAX_LENGTH || newLine.length > MAX_LENGTH) return newLine
  // Runs oldLine and newLine have in common: [oldStart, oldEnd) in oldLine is at newStart in newLine.
  const runs: { oldStart: number; oldEnd: number; newStart: number }[] = []
  let oldAt = 0
  let newAt = 0
  const changes = diffChars(oldLine, newLine, { maxEditLength: MAX_CHARACTER_EDITS })
  if (!changes) return newLine
  for (const change of changes) {
    const length = change.value.length
    if (change.added) newAt += length
    else if (change.removed) oldAt += length
    else {
      runs.push({ oldStart: oldAt, oldEnd: oldAt + length, newStart: newAt })
      oldAt += length
      newAt += length
    }
  }
  let out = newLine
  for (const spot of [...spots].sort((a, b) => b.oldFrom - a.oldFrom)) {
    const run = runs.find((r) => r.oldStart <= spot.oldFrom && spot.oldTo <= r.oldEnd)
    if (!run) continue
    const at = run.newStart + (spot.oldFrom - run.oldStart)
    out = out.slice(0, at) + spot.file + out.slice(at + (spot.oldTo - spot.oldFrom))
  }
  return out
}

const ESCAPED = /\\[ntr'"`\\$]/y
const RESOLVED: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r" }

/**
 * The spots where the file escapes a character (`\"`, `\t`, ...) that oldString's line has as it is:
 * the file's line, its escapes resolved, must read as oldString's line.
 */
export function escapeSpots(oldLine: string, fileLine: string): Spot[] {
  oldLine = oldLine.trimEnd()
  fileLine = fileLine.trimEnd()
  const spots: Spot[] = []
  let resolved = ""
  for (let i = 0; i < fileLine.length; ) {
    ESCAPED.lastIndex = i
    const sequence = ESCAPED.exec(fileLine)?.[0]
    if (sequence) {
      spots.push({ oldFrom: resolved.length, oldTo: resolved.length + 1, file: sequence })
      resolved += RESOLVED[sequence[1]!] ?? sequence[1]!
      i += 2
    } else resolved += fileLine[i++]
  }
  return resolved === oldLine ? spots : []
}

/**
 * For a text whose quotes (or dollar signs) are all backslash-escaped in the file: escapes the same
 * characters in newString, so replacing it keeps the file's escaping.
 */
export function escapeLike(fileText: string): (newString: string) => string {
  const chars = ['"', "'", "`", "$"].filter((char) => {
    const all = fileText.split(char).length - 1
    const escaped = fileText.split(`\\${char}`).length - 1
    return escaped > 0 && escaped === all
  })
  return (newString) =>
    chars.reduce((text, char) => text.replace(new RegExp(`(?<!\\\\)\\${char}`, "g"), `\\${char}`), newString)
}

/**
 * The file's backslash escapes, against oldString's resolved characters: kept where the change did not
 * touch them, and added to the new text for the characters the file's line escapes every time.
 */
export const ESCAPES: Spelling = {
  restore: (oldLine, fileLine, newLine) =>
    escapeLike(fileLine)(restoreSpots(oldLine, newLine, escapeSpots(oldLine, fileLine))),
  what: "escapes",
}
