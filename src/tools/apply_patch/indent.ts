// When a chunk matched only after ignoring leading whitespace, the patch was written with other
// indentation than the file has. If the difference is consistent, added lines get the file's.

/** Rewrites the indentation of one added line. */
export type Reindent = (line: string) => string

/**
 * Learns how the patch's indentation maps onto the file's from lines known to match once trimmed
 * (`patch[i]` against `file[i]`; blank lines are skipped). Returns undefined when the indentation
 * already agrees or differs inconsistently (then added lines are kept as written). Understood:
 * a uniform extra prefix on either side (`\t`, four spaces), and tabs against spaces with one
 * indentation width (2, 4 or 8) and a uniform shift in levels.
 */
export function indentMapping(patch: readonly string[], file: readonly string[]): Reindent | undefined {
  const pairs: [patch: string, file: string][] = []
  for (let i = 0; i < patch.length && i < file.length; i++) {
    const p = patch[i]!
    const f = file[i]!
    if (p.trim() === "" || f.trim() === "") continue
    pairs.push([leading(p), leading(f)])
  }
  if (pairs.length === 0 || pairs.every(([p, f]) => p === f)) return undefined
  return extraPrefix(pairs) ?? missingPrefix(pairs) ?? otherUnit(pairs)
}

/** The file indents every line by the same extra prefix. */
function extraPrefix(pairs: readonly [string, string][]): Reindent | undefined {
  let prefix: string | undefined
  for (const [p, f] of pairs) {
    if (!f.endsWith(p)) return undefined
    const extra = f.slice(0, f.length - p.length)
    if (prefix !== undefined && extra !== prefix) return undefined
    prefix = extra
  }
  if (!prefix) return undefined
  const add = prefix
  return (line) => (line.trim() === "" ? line : add + line)
}

/** The patch indents every line by the same extra prefix. */
function missingPrefix(pairs: readonly [string, string][]): Reindent | undefined {
  let prefix: string | undefined
  for (const [p, f] of pairs) {
    if (!p.endsWith(f)) return undefined
    const extra = p.slice(0, p.length - f.length)
    if (prefix !== undefined && extra !== prefix) return undefined
    prefix = extra
  }
  if (!prefix) return undefined
  const cut = prefix
  return (line) => (line.startsWith(cut) ? line.slice(cut.length) : line)
}

/** One side indents with tabs, the other with spaces, by a fixed width and a uniform shift. */
function otherUnit(pairs: readonly [string, string][]): Reindent | undefined {
  const patchUnit = unitOf(pairs.map(([p]) => p))
  const fileUnit = unitOf(pairs.map(([, f]) => f))
  if (!patchUnit || !fileUnit || patchUnit === fileUnit) return undefined
  for (const width of [4, 2, 8]) {
    const levels = (indent: string, unit: string) =>
      unit === "\t" ? indent.length : indent.length % width === 0 ? indent.length / width : undefined
    let shift: number | undefined
    let consistent = true
    for (const [p, f] of pairs) {
      const lp = levels(p, patchUnit)
      const lf = levels(f, fileUnit)
      if (lp === undefined || lf === undefined || (shift !== undefined && lf - lp !== shift)) {
        consistent = false
        break
      }
      shift = lf - lp
    }
    if (!consistent || shift === undefined) continue
    const by = shift
    const one = fileUnit === "\t" ? "\t" : " ".repeat(width)
    return (line) => {
      const indent = leading(line)
      if (line.trim() === "" || [...indent].some((char) => char !== patchUnit)) return line
      const level = patchUnit === "\t" ? indent.length : Math.floor(indent.length / width)
      const rest = patchUnit === "\t" ? 0 : indent.length % width
      return one.repeat(Math.max(0, level + by)) + " ".repeat(rest) + line.slice(indent.length)
    }
  }
  return undefined
}

/** The one character every non-empty indent is made of, if there is one. */
function unitOf(indents: readonly string[]): " " | "\t" | undefined {
  let unit: " " | "\t" | undefined
  for (const indent of indents) {
    for (const char of indent) {
      if (char !== " " && char !== "\t") return undefined
      if (unit !== undefined && char !== unit) return undefined
      unit = char
    }
  }
  return unit
}

function leading(line: string): string {
  return /^[ \t]*/.exec(line)![0]
}
