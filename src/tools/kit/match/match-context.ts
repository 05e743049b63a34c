/**
 * What the edit matchers share (matchers.ts holds the matchers themselves):
 * - the vocabulary: matcher names, candidate spans, the matcher shape;
 * - `MatchContext`, the file and oldString of one call, with the line forms the matchers compare;
 * - the normalised forms of text (split lines, collapsed whitespace, unescaped text);
 * - the search primitives (substring occurrences, windows of equal lines).
 */
import { detectIndentUnit, type IndentUnit } from "./reindent.ts"
import type { Spelling } from "./spelling.ts"
import { foldCollapsed } from "./typography.ts"

export type MatcherName =
  | "exact"
  | "line-trimmed"
  | "whitespace-normalised"
  | "indentation-flexible"
  | "escape-normalised"
  | "trimmed-boundary"
  | "typographic"
  | "blank-line-tolerant"
  | "partial-lines"
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
  /** Overrides the matcher's description for this span. */
  readonly describe?: string
  /**
   * Set by the matchers that align oldString's lines with the file's (line-alignment.ts): newString is
   * then merged into the window line by line (merge.ts), so lines it does not change keep the file's text.
   */
  readonly alignment?: Alignment
  /** How oldString spells the file's text otherwise, for the merge (default: typography). */
  readonly spelling?: Spelling
}

/** How oldString's lines stand for a window of the file's lines. */
export interface Alignment {
  /** The window's first line, 0-based in the file. */
  readonly first: number
  /** How many file lines the window has. */
  readonly count: number
  /**
   * For each line of oldString, the window line (0-based in the window) it stands for, or -1 for a blank
   * line of oldString in a run of blank lines that is longer or shorter than the file's.
   */
  readonly fileLineOf: readonly number[]
  /** The window starts at this column of its first line (oldString's first line is the end of it). */
  readonly firstColumn: number
  /** The window ends at this column of its last line (oldString's last line is the start of it). */
  readonly lastColumn?: number
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
  #folded?: string[]
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

  /** Lines folded for comparison: trimmed, typography and whitespace runs as one form (typography.ts). */
  get folded(): readonly string[] {
    this.#folded ??= this.collapsed.map(foldCollapsed)
    return this.#folded
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

  /** `window(first, n)` for oldString's n lines, aligned one to one with them. */
  alignedWindow(first: number): Candidate {
    const count = this.findLines.length
    const fileLineOf = Array.from({ length: count }, (_, k) => k)
    return { ...this.window(first, count), alignment: { first, count, fileLineOf, firstColumn: 0 } }
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

// The normalised forms of text that the matchers compare.

/** Lines of a text; a final line break ends the last line instead of starting an empty one. */
export function splitLines(text: string): string[] {
  return (text.length > 1 && text.endsWith("\n") ? text.slice(0, -1) : text).split("\n")
}

/** Whitespace runs collapsed to one space, trimmed. Most lines need only the trim. */
export function collapseWhitespace(text: string): string {
  const trimmed = text.trim()
  return /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, " ") : trimmed
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "'": "'",
  '"': '"',
  "`": "`",
  "\\": "\\",
  $: "$",
  "\n": "\n",
}

/**
 * Resolves the escapes models add when they over-escape code: a backslash before n, t, r, a quote, a
 * backtick, a backslash, a dollar sign or a line break. Other backslashes stay.
 */
export function unescapeString(text: string): string {
  return text.replace(/\\([ntr'"`\\$\n])/g, (_, char: string) => ESCAPES[char]!)
}

/** `unescapeString` for one line of a file: a backslash that ends the line escapes its line break. */
export function unescapeLine(line: string): string {
  if (!line.includes("\\")) return line
  const out = unescapeString(line)
  // An odd run of backslashes at the end leaves one unpaired: it escaped the line break, which unescapes
  // to the line break itself, so the backslash goes.
  let run = 0
  while (run < line.length && line[line.length - 1 - run] === "\\") run++
  return run % 2 === 1 ? out.slice(0, -1) : out
}

// Search primitives the matchers share.

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}

/** Every start of `needle` in `text`, overlapping ones included. */
export function* occurrences(text: string, needle: string): Generator<number> {
  if (needle === "") return
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) yield at
}

/**
 * Starts of the windows of `want.length` lines where every line of `have` (the file's lines, mapped as
 * the matcher compares them) equals `want`'s. Linear in the file plus the work on windows whose most
 * selective line already matches.
 */
export function* windowsWhere(
  context: MatchContext,
  have: readonly string[],
  want: readonly string[],
): Generator<number> {
  const count = want.length
  // Start from the first non-blank wanted line: it is the most selective.
  const pivot = Math.max(
    0,
    want.findIndex((line) => line !== ""),
  )
  const last = context.lines.length - count
  next: for (let i = 0; i <= last; i++) {
    if (have[i + pivot] !== want[pivot]) continue
    for (let k = 0; k < count; k++) if (have[i + k] !== want[k]) continue next
    yield i
  }
}

/** Lines of oldString compared by a looser matcher: none when it is blank (it would match any blank line). */
export function wantLines(context: MatchContext, map: (line: string) => string): string[] | undefined {
  const want = context.findLines.map(map)
  return want.every((line) => line.trim() === "") ? undefined : want
}
