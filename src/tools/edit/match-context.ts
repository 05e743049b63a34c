/** The edit matchers' shared vocabulary: matcher names, candidate spans, and the per-call match context. */
import { collapseWhitespace, splitLines, unescapeLine } from "./normalise-text.ts"
import { detectIndentUnit, type IndentUnit } from "./reindent.ts"

export type MatcherName =
  | "exact"
  | "line-trimmed"
  | "block-anchor"
  | "whitespace-normalised"
  | "indentation-flexible"
  | "escape-normalised"
  | "trimmed-boundary"
  | "context-aware"
  | "multi-occurrence"

/** A span of the (LF) file text that a matcher takes for oldString. */
export interface Candidate {
  readonly start: number
  readonly end: number
  /** Set when the span is whole lines: the 0-based first line and how many. */
  readonly lines?: { readonly first: number; readonly count: number }
  /** oldString ends with a line break that the span could not take (the file's last line has none). */
  readonly missingNewline?: boolean
  /** A change newString needs to fit this span (unescaping, trimming), before re-indentation. */
  readonly adapt?: (newString: string) => string
  /** Overrides the matcher's description for this span (e.g. with a similarity). */
  readonly describe?: string
}

export interface Matcher {
  readonly name: MatcherName
  /** What a match by this matcher ignored, for the normalisation text. */
  readonly describe: string
  /** How this matcher's ambiguity is worded: "Found N matches for oldString <when ...>". */
  readonly when: string
  readonly find: (context: MatchContext) => Iterable<Candidate>
}

/**
 * What the matchers share for one call: the LF file text and oldString, with line arrays computed once
 * and only when a matcher needs them (an exact edit never splits the file).
 */
export class MatchContext {
  readonly content: string
  readonly find: string
  /** oldString's lines; a final line break ends the last line instead of starting an empty one. */
  readonly findLines: readonly string[]
  readonly endsWithNewline: boolean
  #lines?: string[]
  #starts?: number[]
  #trimmed?: string[]
  #collapsed?: string[]
  #unescaped?: string[]
  #unit?: { value: IndentUnit | undefined }

  constructor(content: string, find: string) {
    this.content = content
    this.find = find
    this.endsWithNewline = find.length > 1 && find.endsWith("\n")
    this.findLines = splitLines(find)
  }

  get lines(): readonly string[] {
    this.#lines ??= this.content.split("\n")
    return this.#lines
  }

  /** Offset of each line's first character. */
  get starts(): readonly number[] {
    if (!this.#starts) {
      const starts: number[] = new Array(this.lines.length)
      let at = 0
      for (let i = 0; i < this.lines.length; i++) {
        starts[i] = at
        at += this.lines[i]!.length + 1
      }
      this.#starts = starts
    }
    return this.#starts
  }

  get trimmed(): readonly string[] {
    this.#trimmed ??= this.lines.map((line) => line.trim())
    return this.#trimmed
  }

  /** Lines with whitespace runs collapsed to one space, trimmed. */
  get collapsed(): readonly string[] {
    this.#collapsed ??= this.lines.map(collapseWhitespace)
    return this.#collapsed
  }

  /** Lines with backslash escapes resolved (see `unescapeString`). */
  get unescaped(): readonly string[] {
    this.#unescaped ??= this.lines.map(unescapeLine)
    return this.#unescaped
  }

  /** The file's indentation unit, if it indents at all. */
  get indentUnit(): IndentUnit | undefined {
    this.#unit ??= { value: detectIndentUnit(this.lines) }
    return this.#unit.value
  }

  /** 0-based line of an offset. */
  lineOf(offset: number): number {
    const starts = this.starts
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >>> 1
      if (starts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    return low
  }

  /**
   * The span of `count` whole lines from `first`. When oldString (or `endsWithNewline`) ends with a line
   * break, the span takes the one after its last line too, so newString's own final line break replaces
   * it rather than adding a line.
   */
  window(first: number, count: number, endsWithNewline = this.endsWithNewline): Candidate {
    const last = first + count - 1
    const start = this.starts[first]!
    let end = this.starts[last]! + this.lines[last]!.length
    let missingNewline = false
    if (endsWithNewline) {
      if (last < this.lines.length - 1) end++
      else missingNewline = true
    }
    return { start, end, lines: { first, count }, ...(missingNewline ? { missingNewline } : {}) }
  }
}
