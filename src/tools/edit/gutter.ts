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
 * 1. every non-blank line of oldString to start with the same gutter form, numbered consecutively
 *    (a blank line may lack its gutter but still takes its number), so real content such as a YAML
 *    `12: value` line pair is not mistaken for one;
 * 2. newString's non-blank lines to have that gutter too, or none of them (lines the model added
 *    without a number are then indistinguishable from content, so a mix leaves both strings alone).
 * The caller tries this only when oldString as given is not in the file.
 */
export function stripGutters(oldString: string, newString: string): Stripped | undefined {
  const oldLines = oldString.split("\n")
  const first = oldLines.findIndex((line) => line.trim() !== "")
  if (first === -1) return undefined
  const form = FORMS.find(([, pattern]) => pattern.test(oldLines[first]!))
  if (!form) return undefined
  const [name, pattern] = form
  const firstLine = Number(pattern.exec(oldLines[first]!)![1]) - first
  for (let i = 0; i < oldLines.length; i++) {
    const line = oldLines[i]!
    const match = pattern.exec(line)
    if (match) {
      if (Number(match[1]) !== firstLine + i) return undefined
    } else if (line.trim() !== "") return undefined
  }
  const newLines = newString.split("\n")
  const numbered = newLines.filter((line) => pattern.test(line)).length
  const nonBlank = newLines.filter((line) => line.trim() !== "" && !pattern.test(line)).length
  if (numbered > 0 && nonBlank > 0) return undefined
  const strip = (lines: string[]) => lines.map((line) => line.replace(pattern, "")).join("\n")
  return {
    oldString: strip(oldLines),
    newString: numbered > 0 ? strip(newLines) : newString,
    form: name,
    firstLine,
  }
}
