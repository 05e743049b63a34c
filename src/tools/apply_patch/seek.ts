// Finds a run of patch lines in a file's lines, in four passes of decreasing strictness.

/** How closely the lines matched, strictest first. */
export type Pass = "exact" | "trailing-whitespace" | "whitespace" | "unicode"

export const PASSES: readonly Pass[] = ["exact", "trailing-whitespace", "whitespace", "unicode"]

/** What each pass ignored, for notes shown to the model. */
export const PASS_DESCRIPTION: Record<Pass, string> = {
  exact: "exactly",
  "trailing-whitespace": "ignoring trailing whitespace",
  whitespace: "ignoring leading and trailing whitespace",
  unicode: "ignoring whitespace and Unicode punctuation (curly quotes, dashes, non-breaking spaces)",
}

const FOLDS: [RegExp, string][] = [
  [/[\u2018\u2019\u201A\u201B\u2032\u2035]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033\u2036\u00AB\u00BB]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D]/g, "-"],
  [/\u2026/g, "..."],
  [/[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, " "],
  [/[\u200B\u2060\uFEFF]/g, ""],
]

/** Unicode punctuation that models and word processors substitute, folded to ASCII. */
export function foldPunctuation(line: string): string {
  // Fast path: plain ASCII lines (nearly all source code) have nothing to fold.
  if (!/[\u0080-\uFFFF]/.test(line)) return line
  let out = line
  for (const [pattern, replacement] of FOLDS) out = out.replace(pattern, replacement)
  return out
}

const NORMALISE: Record<Pass, (line: string) => string> = {
  exact: (line) => line,
  "trailing-whitespace": (line) => line.trimEnd(),
  whitespace: (line) => line.trim(),
  unicode: (line) => foldPunctuation(line).trim(),
}

export type Found = { index: number; pass: Pass }

/**
 * Searches one file's lines; the normalised forms of the file are computed once, on first use,
 * so many chunks against one file cost one pass of normalisation at most.
 */
export class LineMatcher {
  readonly lines: readonly string[]
  private readonly normalised = new Map<Pass, string[]>()

  constructor(lines: readonly string[]) {
    this.lines = lines
  }

  /**
   * The first index at or after `start` where `pattern` matches, trying every pass over the whole
   * range before the next looser one (an exact match further on beats a fuzzy one nearby). With
   * `fromEnd`, each pass scans from the end of the file back to `start` (the last occurrence wins).
   * An empty pattern matches at `start` (or at the end with `fromEnd`).
   */
  seek(pattern: readonly string[], start: number, fromEnd = false): Found | undefined {
    if (pattern.length === 0) return { index: fromEnd ? this.lines.length : start, pass: "exact" }
    for (const pass of PASSES) {
      const index = this.seekPass(pass, pattern, start, fromEnd)
      if (index !== undefined) return { index, pass }
    }
    return undefined
  }

  /** The loosest-needed pass with which `pattern` matches exactly at `index`, if any. */
  matchAt(pattern: readonly string[], index: number): Pass | undefined {
    if (index < 0 || index + pattern.length > this.lines.length) return undefined
    for (const pass of PASSES) {
      const lines = this.forms(pass)
      const normalise = NORMALISE[pass]
      let all = true
      for (let j = 0; j < pattern.length && all; j++) all = lines[index + j] === normalise(pattern[j]!)
      if (all) return pass
    }
    return undefined
  }

  /** The first line at or after `start` whose trimmed text begins with `prefix` (trimmed, folded). */
  seekPrefix(prefix: string, start: number): number | undefined {
    const wanted = NORMALISE.unicode(prefix)
    if (wanted === "") return undefined
    const lines = this.forms("unicode")
    for (let i = Math.max(0, start); i < lines.length; i++) if (lines[i]!.startsWith(wanted)) return i
    return undefined
  }

  /** The lines normalised for a pass. */
  forms(pass: Pass): readonly string[] {
    if (pass === "exact") return this.lines
    let forms = this.normalised.get(pass)
    if (!forms) {
      forms = this.lines.map(NORMALISE[pass])
      this.normalised.set(pass, forms)
    }
    return forms
  }

  private seekPass(
    pass: Pass,
    pattern: readonly string[],
    start: number,
    fromEnd: boolean,
  ): number | undefined {
    const lines = this.forms(pass)
    const wanted = pass === "exact" ? pattern : pattern.map(NORMALISE[pass])
    const first = Math.max(0, start)
    const last = lines.length - wanted.length
    if (last < first) return undefined
    const head = wanted[0]!
    if (fromEnd) {
      for (let i = last; i >= first; i--) if (lines[i] === head && matchesAt(lines, wanted, i)) return i
    } else {
      for (let i = first; i <= last; i++) if (lines[i] === head && matchesAt(lines, wanted, i)) return i
    }
    return undefined
  }
}

function matchesAt(lines: readonly string[], wanted: readonly string[], at: number): boolean {
  for (let j = 1; j < wanted.length; j++) if (lines[at + j] !== wanted[j]) return false
  return true
}

/** Normalises one line as a pass compares it. */
export function normalise(pass: Pass, line: string): string {
  return NORMALISE[pass](line)
}
