/**
 * Line-number gutters that models copy from read output into oldString and newString: `12: ` (our read
 * tool and opencode's), `  12 | `, `12→` and `12<TAB>` (cat -n and other agents' read tools).
 */

export type GutterForm = "colon" | "pipe" | "arrow" | "tab"

const FORMS: readonly (readonly [GutterForm, RegExp])[] = [
  // A blank line is read as "12: "; models often drop the space that ends it.
  ["colon", /^[ \t]*(\d+):(?: |$)/],
  ["pipe", /^[ \t]*(\d+) \|(?: |$)/],
  ["arrow", /^[ \t]*(\d+)→/],
  ["tab", /^[ \t]*(\d+)\t/],
]

export interface Stripped {
  readonly oldString: string
  readonly newString: string
  readonly form: GutterForm
  /** The line number the gutter gave oldString's first line. */
  readonly firstLine: number
}

/**
 * Strips gutters from both strings (LF text), or returns undefined to leave both alone. Stripping needs:
 * 1. oldString's non-blank lines to start with one gutter form, numbered consecutively (a blank line may
 *    lack its gutter but still takes its number), so real content such as a YAML `12: value` line pair
 *    is not mistaken for one. One non-blank line may lack its number (a copy that lost it) when at least
 *    two others have theirs; it still takes its place in the numbering.
 * 2. newString's numbered lines (the same form) to be numbered in ascending order; they lose their
 *    gutters, and its lines without one (lines the model added, or copied without a number) stay as
 *    they are.
 * The caller tries this only when oldString as given is not in the file.
 */
export function stripGutters(oldString: string, newString: string): Stripped | undefined {
  const oldLines = oldString.split("\n")
  const numberedAt = oldLines.findIndex((line) => FORMS.some(([, pattern]) => pattern.test(line)))
  if (numberedAt === -1) return undefined
  const form = FORMS.find(([, pattern]) => pattern.test(oldLines[numberedAt]!))!
  const [name, pattern] = form
  const firstLine = Number(pattern.exec(oldLines[numberedAt]!)![1]) - numberedAt
  let numbered = 0
  let missing = 0
  for (let i = 0; i < oldLines.length; i++) {
    const line = oldLines[i]!
    const match = pattern.exec(line)
    if (match) {
      if (Number(match[1]) !== firstLine + i) return undefined
      numbered++
    } else if (line.trim() !== "") missing++
  }
  if (missing > 1 || (missing === 1 && numbered < 2)) return undefined
  const newLines = newString.split("\n")
  let previous = Number.NEGATIVE_INFINITY
  for (const line of newLines) {
    const match = pattern.exec(line)
    if (!match) continue
    if (Number(match[1]) <= previous) return undefined
    previous = Number(match[1])
  }
  const strip = (lines: string[]) => lines.map((line) => line.replace(pattern, "")).join("\n")
  return { oldString: strip(oldLines), newString: strip(newLines), form: name, firstLine }
}
