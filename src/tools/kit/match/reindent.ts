/**
 * Re-indentation of newString when a looser matcher matched lines whose indentation differs from
 * oldString's: the model's text keeps its shape, and takes the file's position and style.
 */

export type IndentUnit = { readonly kind: "tab" } | { readonly kind: "space"; readonly width: number }

/** How many columns a tab counts for when a tab-indented text is read as levels. */
const TAB_COLUMNS = 4

/** A line's indentation: its leading spaces and tabs. */
export function indentOf(line: string): string {
  let end = 0
  while (end < line.length && (line[end] === " " || line[end] === "\t")) end++
  return line.slice(0, end)
}

export function isBlank(line: string): boolean {
  return line.trim() === ""
}

/** "tabs" or "4 spaces". */
export function unitName(unit: IndentUnit): string {
  return unit.kind === "tab" ? "tabs" : `${unit.width} spaces`
}

function sameUnit(a: IndentUnit, b: IndentUnit): boolean {
  return a.kind === b.kind && (a.kind === "tab" || a.width === (b as { width: number }).width)
}

/**
 * The indentation unit of `lines`: tabs when more lines are indented with a tab than with spaces;
 * otherwise spaces, as wide as the most common step between consecutive lines' indentation (ties go to
 * the narrower). One-space indentation and steps of one column (JSDoc ` * ` lines) are ignored. With no
 * step to measure, the width is `prefer`'s when every width is a multiple of it, else the common
 * divisor of the (even, if there are any) widths, read as 4 or 2 when larger (8 spaces alone are two
 * levels of 4). Undefined when no line is indented.
 */
export function detectIndentUnit(lines: Iterable<string>, prefer?: IndentUnit): IndentUnit | undefined {
  let tabs = 0
  let spaces = 0
  const steps = new Map<number, number>()
  const widths = new Set<number>()
  let previous: number | undefined
  for (const line of lines) {
    if (isBlank(line)) continue
    const indent = indentOf(line)
    if (indent.startsWith("\t")) {
      tabs++
      previous = undefined
      continue
    }
    const width = indent.includes("\t") ? undefined : indent.length
    if (width === undefined || width === 1) continue
    if (width > 0) {
      spaces++
      widths.add(width)
    }
    if (previous !== undefined && width !== previous) {
      const step = Math.abs(width - previous)
      if (step >= 2) steps.set(step, (steps.get(step) ?? 0) + 1)
    }
    previous = width
  }
  if (tabs === 0 && spaces === 0) return undefined
  if (tabs > spaces) return { kind: "tab" }
  let best = 0
  let bestCount = 0
  for (const [step, count] of steps) {
    if (count > bestCount || (count === bestCount && step < best)) {
      best = step
      bestCount = count
    }
  }
  if (best > 0) return { kind: "space", width: best }
  // Odd widths next to even ones are alignment (a JSDoc " * " under "/**"), not levels.
  const even = [...widths].filter((width) => width % 2 === 0)
  const all = even.length > 0 ? even : [...widths]
  if (prefer?.kind === "space" && all.every((width) => width % prefer.width === 0)) return prefer
  const divisor = all.reduce(gcd)
  return {
    kind: "space",
    width: divisor <= 4 ? divisor : divisor % 4 === 0 ? 4 : divisor % 2 === 0 ? 2 : divisor,
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b)
}

interface Level {
  readonly level: number
  /** Columns past the last whole level (alignment), kept as spaces. */
  readonly rest: number
}

function levelOf(indent: string, unit: IndentUnit): Level {
  if (unit.kind === "tab") {
    let tabs = 0
    while (tabs < indent.length && indent[tabs] === "\t") tabs++
    let columns = 0
    for (const char of indent.slice(tabs)) columns += char === "\t" ? TAB_COLUMNS : 1
    return { level: tabs + Math.floor(columns / TAB_COLUMNS), rest: columns % TAB_COLUMNS }
  }
  let columns = 0
  for (const char of indent) columns += char === "\t" ? unit.width : 1
  return { level: Math.floor(columns / unit.width), rest: columns % unit.width }
}

function indentFor(level: number, rest: number, unit: IndentUnit): string {
  const whole = unit.kind === "tab" ? "\t".repeat(level) : " ".repeat(level * unit.width)
  return whole + " ".repeat(rest)
}

/** The shortest indentation among the non-blank lines; undefined when every line is blank. */
function minimumIndent(lines: readonly string[]): string | undefined {
  let minimum: string | undefined
  for (const line of lines) {
    if (isBlank(line)) continue
    const indent = indentOf(line)
    if (minimum === undefined || indent.length < minimum.length) minimum = indent
  }
  return minimum
}

function mapLines(text: string, map: (line: string, indent: string) => string): string {
  return text
    .split("\n")
    .map((line) => (isBlank(line) ? line : map(line, indentOf(line))))
    .join("\n")
}

export interface ReindentInput {
  /** The replacement text, LF. */
  readonly newString: string
  /** oldString's lines, as the matcher compared them. */
  readonly oldLines: readonly string[]
  /** The file's matched lines. */
  readonly matchedLines: readonly string[]
  /** Lines that correspond: [index in oldLines, index in matchedLines]. */
  readonly pairs: readonly (readonly [number, number])[]
  /** The file's indentation unit (from the whole file), if it has one. */
  readonly fileUnit?: IndentUnit
}

export interface Reindented {
  readonly text: string
  /** What was done, for the result's normalisation text. */
  readonly note: string
}

/**
 * Re-indents newString to the matched block, or returns undefined when nothing needs to change (every
 * corresponding non-blank line has the same indentation in oldString and in the file).
 *
 * 1. If newString's indentation already starts where the file's block does (and oldString's does not),
 *    the model wrote newString in the file's indentation: it is kept as written.
 * 2. If the file's lines are oldString's with one fixed prefix added (or removed), the same prefix is
 *    added to (or removed from) every non-blank line of newString. Exact, and needs no guess of a unit.
 * 3. Otherwise (tabs against spaces, or 2 against 4 spaces) indentation is read as levels: oldString's
 *    and newString's in their own unit, the file's in its unit; newString's lines move by the level
 *    difference of the first corresponding pair and are written in the file's unit. Columns past a
 *    whole level (alignment) are kept as spaces. Levels never go below zero.
 */
export function reindent(input: ReindentInput): Reindented | undefined {
  const { newString, oldLines, matchedLines } = input
  const pairs = input.pairs
    .map(([o, m]) => [oldLines[o] ?? "", matchedLines[m] ?? ""] as const)
    .filter(([o, m]) => !isBlank(o) && !isBlank(m))
    .map(([o, m]) => [indentOf(o), indentOf(m)] as const)
  if (pairs.length === 0 || pairs.every(([o, m]) => o === m)) return undefined
  const newLines = newString.split("\n")
  if (newLines.every(isBlank)) return undefined

  const newMinimum = minimumIndent(newLines)
  const blockMinimum = minimumIndent(matchedLines)
  if (newMinimum === blockMinimum && newMinimum !== minimumIndent(oldLines)) {
    return { text: newString, note: "newString kept as written: it already has the file's indentation" }
  }

  const added = commonPrefix(
    pairs.map(([o, m]) => (m.endsWith(o) ? m.slice(0, m.length - o.length) : undefined)),
  )
  if (added) {
    return {
      text: mapLines(newString, (line) => added + line),
      note: `newString re-indented to the file's indentation (+${describeIndent(added)})`,
    }
  }
  const removed = commonPrefix(
    pairs.map(([o, m]) => (o.endsWith(m) ? o.slice(0, o.length - m.length) : undefined)),
  )
  if (removed) {
    return {
      text: mapLines(newString, (line, indent) =>
        line.startsWith(removed) ? line.slice(removed.length) : line.slice(indent.length),
      ),
      note: `newString re-indented to the file's indentation (-${describeIndent(removed)})`,
    }
  }

  const blockUnit = detectIndentUnit(matchedLines)
  const fileUnit =
    input.fileUnit && (!blockUnit || blockUnit.kind === input.fileUnit.kind) ? input.fileUnit : blockUnit
  const target: IndentUnit = fileUnit ?? unitOfIndent(pairs[0]![1]) ?? { kind: "space", width: 2 }
  const oldUnit = detectIndentUnit(oldLines, target) ?? detectIndentUnit(newLines, target) ?? target
  const newUnit = detectIndentUnit(newLines, oldUnit) ?? oldUnit
  const [oldAnchor, fileAnchor] = pairs[0]!
  const delta = levelOf(fileAnchor, target).level - levelOf(oldAnchor, oldUnit).level
  const text = mapLines(newString, (line, indent) => {
    const { level, rest } = levelOf(indent, newUnit)
    return indentFor(Math.max(0, level + delta), rest, target) + line.slice(indent.length)
  })
  const note = sameUnit(newUnit, target)
    ? `newString re-indented to the file's indentation (${delta >= 0 ? "+" : ""}${delta} level${Math.abs(delta) === 1 ? "" : "s"} of ${unitName(target)})`
    : `newString re-indented with ${unitName(target)} as the file uses`
  return { text, note }
}

/** The one string every entry has (undefined entries or a disagreement give undefined). */
function commonPrefix(values: readonly (string | undefined)[]): string | undefined {
  const first = values[0]
  if (first === undefined || first === "") return undefined
  return values.every((value) => value === first) ? first : undefined
}

/** "2 tabs and 4 spaces": an indentation as words, for messages. */
export function describeIndent(indent: string): string {
  const tabs = [...indent].filter((char) => char === "\t").length
  const spaces = indent.length - tabs
  const parts: string[] = []
  if (tabs > 0) parts.push(`${tabs} tab${tabs === 1 ? "" : "s"}`)
  if (spaces > 0) parts.push(`${spaces} space${spaces === 1 ? "" : "s"}`)
  return parts.join(" and ")
}

function unitOfIndent(indent: string): IndentUnit | undefined {
  if (indent.startsWith("\t")) return { kind: "tab" }
  return indent.length > 0 ? { kind: "space", width: indent.length } : undefined
}
