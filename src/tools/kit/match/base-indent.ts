/**
 * Where newString lands when oldString matched the file as written (no line alignment): at the
 * indentation of the text it replaces, or refused. Two slips would otherwise shift a block silently
 * (and break Python, YAML, Makefiles):
 * - newString written without the block's base indentation (its lines start at the margin) while the
 *   lines it replaces are indented;
 * - a first line copied without its indentation: oldString then matches from the line's first
 *   character, so the first line of newString lands at the file's indentation while the rest land as
 *   written, relative either to the file (as oldString's) or to the margin.
 */
import { describeIndent, indentOf, isBlank } from "./reindent.ts"

export interface LandingInput {
  /** The file's lines the span covers, whole (the first from its start, the last to its end). */
  readonly fileLines: readonly string[]
  /** 1-based line of the first of them, for the refusal's excerpt. */
  readonly firstLine: number
  /** What precedes the span on its first line: "" at the line's start, else its indentation. */
  readonly prefix: string
  /** The text that replaces the span, LF. */
  readonly text: string
}

export type Landing =
  | { readonly ok: true; readonly text: string; readonly note?: string }
  | { readonly ok: false; readonly message: string }

/** Where each line of newString would start under one reading of how the model indented it. */
type Reading = (line: number) => string

/**
 * newString placed at the indentation of the text it replaces.
 *
 * 1. Only a newString that can have lost the block's indentation is looked at: after a prefix (the
 *    first line copied without its indentation), one whose first line has none; at a line's start, one
 *    with a line at the margin while the replaced lines are all indented.
 * 2. The evidence: lines newString keeps (same text, in order) should land where they are in the file,
 *    and its first lines where the replaced lines' first lines are.
 * 3. Readings, in order: as written; relative to the margin, so moved to the block (after a prefix the
 *    lines after the first move by it; at a line's start every line moves by the replaced lines' least
 *    indentation); with only its first line copied without indentation. The first that fits the
 *    evidence is taken; a newString at the margin that none fits is refused, showing the region.
 */
export function landAtBase(input: LandingInput): Landing {
  const { fileLines, prefix, text } = input
  const newLines = text.split("\n")
  const asWritten = { ok: true, text } as const
  if (newLines.every(isBlank) || fileLines.every(isBlank)) return asWritten
  const indentAt = (k: number) => indentOf(newLines[k]!)
  const partial = prefix !== ""
  const base = leastIndent(fileLines)
  if (partial ? indentAt(0) !== "" || newLines.length < 2 : leastIndent(newLines) !== "" || base === "")
    return asWritten

  const evidence = keptLines(newLines, fileLines, partial)
  const fits = (reading: Reading) =>
    evidence.length > 0 && evidence.every(([k, j]) => reading(k) === indentOf(fileLines[j]!))
  const written: Reading = (k) => (k === 0 ? prefix + indentAt(0) : indentAt(k))
  if (fits(written)) return asWritten

  const shift = partial ? prefix : base
  const moved: Reading = (k) => (partial && k === 0 ? prefix : shift + indentAt(k))
  const firstLost: Reading = (k) => (k === 0 ? indentOf(fileLines[0]!) : indentAt(k))
  const readings: [Reading, string][] = [
    [
      moved,
      `newString was written without the block's indentation, so it was re-indented to the text it replaces (+${describeIndent(shift)})`,
    ],
  ]
  if (!partial && newLines.length > 1 && indentAt(0) === "") {
    readings.push([
      firstLost,
      "newString's first line was copied without its indentation, so it was given the indentation of the line it replaces",
    ])
  }
  for (const [reading, note] of readings) {
    if (!fits(reading)) continue
    const lines = newLines.map((line, k) =>
      isBlank(line) || (partial && k === 0) ? line : reading(k) + line.slice(indentAt(k).length),
    )
    return { ok: true, text: lines.join("\n"), note }
  }
  if (partial) return asWritten
  return { ok: false, message: refusal(input, base) }
}

/**
 * The same landing, checked after the line-aligned path (merge.ts, reindent.ts) re-indented newString by
 * oldString's indentation: when oldString's own indentation was slipped (its lines dedented to the
 * margin, or its first line bare and the rest a level too deep), that move shifts newString. `produced`
 * is kept when its lines fit the evidence (or there is none); otherwise newString as the model wrote
 * it (`text`) is landed at the base as above, and taken when that fits. When neither fits, `produced`
 * stands: a deliberate re-indentation (a block wrapped or unwrapped) fits no reading of newString.
 */
export function landAligned(input: LandingInput & { readonly produced: string }): Landing {
  const { fileLines, produced } = input
  const asProduced = { ok: true, text: produced } as const
  if (fileLines.every(isBlank) || fitsInPlace(produced, fileLines) !== false) return asProduced
  const landed = landAtBase({ ...input, prefix: "" })
  if (!landed.ok || landed.text === produced || !fitsInPlace(landed.text, fileLines)) return asProduced
  return landed
}

/** Whether text's lines sit where the evidence says (undefined when there is none). */
function fitsInPlace(text: string, fileLines: readonly string[]): boolean | undefined {
  const lines = text.split("\n")
  const evidence = keptLines(lines, fileLines, false)
  if (evidence.length === 0) return undefined
  return evidence.every(([k, j]) => indentOf(lines[k]!) === indentOf(fileLines[j]!))
}

/**
 * Pairs [line of newString, line of the file] that should sit at the same indentation: the lines
 * newString keeps, matched in order by their text, and its first two non-blank lines with the file's
 * first two where those are not paired already (a changed line stands where the line it changes was).
 * After a prefix the first line is left out (it lands after the prefix whatever the reading).
 */
function keptLines(
  newLines: readonly string[],
  fileLines: readonly string[],
  partial: boolean,
): (readonly [number, number])[] {
  const from = partial ? 1 : 0
  const kept: (readonly [number, number])[] = []
  let next = from
  for (let k = from; k < newLines.length; k++) {
    const content = newLines[k]!.trim()
    if (content === "") continue
    for (let j = next; j < fileLines.length; j++) {
      if (fileLines[j]!.trim() !== content) continue
      kept.push([k, j])
      next = j + 1
      break
    }
  }
  const firstOf = (lines: readonly string[]) =>
    lines.flatMap((line, k) => (k >= from && !isBlank(line) ? [k] : [])).slice(0, 2)
  const fileFirst = firstOf(fileLines)
  firstOf(newLines).forEach((k, i) => {
    const j = fileFirst[i]
    if (j !== undefined && !kept.some(([n, f]) => n === k || f === j)) kept.push([k, j])
  })
  return kept
}

/** The least indentation among the non-blank lines ("" when one is at the margin). */
function leastIndent(lines: readonly string[]): string {
  let least: string | undefined
  for (const line of lines) {
    if (isBlank(line)) continue
    const indent = indentOf(line)
    if (least === undefined || indent.length < least.length) least = indent
  }
  return least ?? ""
}

function refusal(input: LandingInput, base: string): string {
  const { fileLines, firstLine } = input
  const last = firstLine + fileLines.length - 1
  const where = fileLines.length === 1 ? `line ${firstLine}` : `lines ${firstLine}-${last}`
  const excerpt = fileLines.map((line, k) => `${firstLine + k}: ${line}`).join("\n")
  return `newString starts at the margin, but the text it replaces (${where}) is indented by ${describeIndent(base)}, and newString's lines fit neither as written nor moved to that indentation, so the edit would land shifted. Write newString with the indentation the lines have in the file:\n\n${excerpt}`
}
