// A glob read into a flat program for the NFA (glob-nfa.ts): single-unit sets, `*`, the
// globstar's reach, and groups (braces, extglobs) as open / or / close. Read the way picomatch read it,
// with `dot` on, so that a glob keeps matching what it matched (the differential test holds the two to it).
// The reading is a loop over the characters with an explicit stack of open braces and groups: no
// recursion, so no nesting depth can overflow the stack.
import { CharSet } from "./glob-charset.ts"
import { parseBracket } from "./glob-class.ts"
import type { GlobOp, GroupRepeat } from "./glob-ops.ts"
import { braceRange } from "./glob-range.ts"

export interface ParsedGlob {
  /** An odd number of leading `!`: the glob matches what the rest does not. */
  readonly negated: boolean
  readonly ops: readonly GlobOp[]
  /**
   * picomatch built a regular expression that failed to compile (a `{` never closed, a class range
   * written backwards), so the glob matched no path, only its own text.
   */
  readonly matchesNothing: boolean
  /** How many values the glob's numeric brace ranges stand for, however many were expanded. */
  readonly rangeValues: number
}

/** The most values numeric brace ranges (`{1..100}`) may stand for in one glob, all ranges together. */
export const MAX_RANGE_VALUES = 10_000

const SLASH = 0x2f
const NOT_SLASH = CharSet.notSlash()

/** What came just before, which decides whether `**` is a globstar. */
type Previous = "start" | "slash" | "brace-start" | "brace-end" | "group-start" | "star" | "other"

/**
 * Reads `glob` (already normalized: trimmed, no leading `./`). The rules, each as picomatch had them:
 * - leading `!`s negate (an odd number of them); `./` after them is dropped;
 * - `*` matches within a path segment, `?` one unit that is not `/`; `\` escapes the next character;
 * - `[…]` is a bracket expression (glob-class.ts); without a closing `]`, `[` is a literal;
 * - `{a,b}` are alternatives (nested, and across `/`); `{a..e}`, `{1..10}` ranges (glob-range.ts); braces
 *   with neither a comma nor a range are literal text; a `{` never closed makes the glob match nothing;
 * - `**` alone in a segment matches any number of segments: `**` + `/` at the start and `/` + `**` + `/`
 *   anywhere match zero or more directories, `/` + `**` at the end matches the directory itself and all
 *   below it (but after a segment ending in `*` it needs the `/`); just after `{` or `,` it is any text
 *   across segments; elsewhere `**` is a `*`, and so are three or more stars;
 * - extglobs: `@(a|b)` one of the alternatives, `?(a|b)` at most one, `+(a|b)` one or more, `*(a|b)`
 *   zero or more, `!(a|b)` any text of the segment that none matches (bash's meaning); a bare `(a|b)` is
 *   `@(a|b)`, and a bare `(a)` (no `|`) also matches its own text, as brackets do (a Next.js route group
 *   `app/(shop)/page.tsx`). The alternatives hold any glob syntax; wildcards in them (`*`, `**`, `?`,
 *   classes) never match `/`. A group never closed is literal text; `|` and `)` outside a group are
 *   literal, and so are `@`, `+`, `!` not followed by `(`. A `!` that opens a group is not a negation of
 *   the glob (`!(a)` is the extglob, `!!(a)` its negation);
 * - the glob `*.*` (or `**` + `/*.*`) needs a character after the dot (picomatch's fast path for it).
 */
export function parseGlob(glob: string): ParsedGlob {
  const reader = new Reader(glob)
  return reader.read()
}

interface OpenBrace {
  readonly kind: "brace"
  /** Where its `open` op is in the program. */
  readonly op: number
  /** Where its `{` is in the glob. */
  readonly at: number
  comma: boolean
}

interface OpenGroup {
  readonly kind: "group"
  /** Where its `open` op is in the program. */
  readonly op: number
  /** Where its opening text (`@(`, `(`, …) starts in the glob, and where its `(` is. */
  readonly at: number
  readonly paren: number
  /** Where its `|` ops are in the program (made literal again if no `)` closes the group). */
  readonly bars: number[]
}

class Reader {
  readonly #glob: string
  readonly #ops: GlobOp[] = []
  /** The braces and groups open at this point, innermost last. */
  readonly #open: (OpenBrace | OpenGroup)[] = []
  /** How many of them are groups. */
  #groups = 0
  #previous: Previous = "start"
  /** For the last `/`: whether it opened the glob, and whether a star came just before it. */
  #slashFirst = false
  #slashAfterStar = false
  #matchesNothing = false
  #rangeValues = 0

  constructor(glob: string) {
    this.#glob = glob
  }

  read(): ParsedGlob {
    const glob = this.#glob
    let index = 0
    while (glob[index] === "!") index++
    // The last `!` before a `(` opens an extglob (`!(a)`), not a negation of the glob.
    if (index > 0 && glob[index] === "(") index--
    const negated = index % 2 === 1
    // picomatch dropped `./` after an odd number of `!` only (after `!!` it stayed, and matched nothing).
    if (index === 0 || negated) while (glob.startsWith("./", index)) index += 2
    while (index < glob.length) index = this.#next(index)
    this.#unclosedGroups()
    if (this.#open.length > 0) this.#matchesNothing = true
    // picomatch compiled the whole globs `*.*` and `**/*.*` on a fast path whose last `*` needs a character.
    if (glob === "*.*" || glob === "**/*.*")
      this.#ops.splice(this.#ops.length - 1, 0, { op: "unit", set: NOT_SLASH })
    return { negated, ops: this.#ops, matchesNothing: this.#matchesNothing, rangeValues: this.#rangeValues }
  }

  /** Reads the token at `index`; returns the index after it. */
  #next(index: number): number {
    const glob = this.#glob
    const char = glob[index]!
    switch (char) {
      case "\\":
        return this.#escape(index)
      case "[":
        return this.#bracket(index)
      case "{":
        this.#open.push({ kind: "brace", op: this.#ops.length, at: index, comma: false })
        this.#push({ op: "open" }, "brace-start")
        return index + 1
      case ",": {
        const brace = this.#open.at(-1)
        if (brace?.kind !== "brace") return this.#literal(index)
        brace.comma = true
        this.#push({ op: "or" }, "brace-start")
        return index + 1
      }
      case "}":
        if (this.#open.at(-1)?.kind !== "brace") return this.#literal(index)
        this.#closeBrace(index)
        return index + 1
      case "(":
        this.#openGroup(index, index, undefined)
        return index + 1
      case "|": {
        const group = this.#open.at(-1)
        if (group?.kind !== "group") return this.#literal(index)
        group.bars.push(this.#ops.length)
        this.#push({ op: "or" }, "group-start")
        return index + 1
      }
      case ")":
        if (this.#open.at(-1)?.kind !== "group") return this.#literal(index)
        this.#closeGroup(index)
        return index + 1
      case "@":
      case "+":
      case "!":
        if (glob[index + 1] !== "(") return this.#literal(index)
        this.#openGroup(index, index + 1, char === "@" ? undefined : char)
        return index + 2
      case "*":
        return this.#stars(index)
      case "?":
        if (glob[index + 1] === "(") {
          this.#openGroup(index, index + 1, "?")
          return index + 2
        }
        this.#push({ op: "unit", set: NOT_SLASH }, "other")
        return index + 1
      case "/":
        this.#slash()
        return index + 1
      default:
        return this.#literal(index)
    }
  }

  /** `\` + a character: that character. `\/` is a `/` like any other, and a `\` at the end is itself. */
  #escape(index: number): number {
    const next = this.#glob[index + 1]
    if (next === undefined) return this.#literal(index)
    if (next === "/") {
      this.#slash()
      return index + 2
    }
    return this.#literal(index + 1)
  }

  #literal(index: number): number {
    this.#push({ op: "unit", set: CharSet.of(this.#glob.charCodeAt(index)) }, "other")
    return index + 1
  }

  #slash(): void {
    this.#slashFirst = this.#previous === "start"
    this.#slashAfterStar = this.#previous === "star"
    this.#push({ op: "unit", set: CharSet.of(SLASH) }, "slash")
  }

  #bracket(index: number): number {
    const bracket = parseBracket(this.#glob, index)
    if (!bracket) return this.#literal(index)
    if (bracket.invalid) this.#matchesNothing = true
    if (bracket.literal === undefined) this.#push({ op: "unit", set: bracket.set }, "other")
    else {
      this.#ops.push({ op: "open" }, { op: "unit", set: bracket.set }, { op: "or" })
      for (let unit = 0; unit < bracket.literal.length; unit++)
        this.#ops.push({ op: "unit", set: CharSet.of(bracket.literal.charCodeAt(unit)) })
      this.#push({ op: "close" }, "other")
    }
    return bracket.end
  }

  #openGroup(at: number, paren: number, repeat: GroupRepeat | undefined): void {
    this.#open.push({ kind: "group", op: this.#ops.length, at, paren, bars: [] })
    this.#groups++
    this.#push(repeat ? { op: "open", repeat } : { op: "open" }, "group-start")
  }

  /** The `)` at `index` closes the innermost group; a bare `(a)` also matches its own text. */
  #closeGroup(index: number): void {
    const group = this.#open.pop() as OpenGroup
    this.#groups--
    if (group.at === group.paren && group.bars.length === 0) {
      this.#ops.push({ op: "or" })
      for (let unit = group.at; unit <= index; unit++)
        this.#ops.push({ op: "unit", set: CharSet.of(this.#glob.charCodeAt(unit)) })
    }
    this.#push({ op: "close" }, "other")
  }

  /**
   * Groups no `)` closed are literal text: their opening text and their `|` become units again, innermost
   * first, so that each splice leaves the places of the groups still to mend unchanged.
   */
  #unclosedGroups(): void {
    const ops = this.#ops
    for (let index = this.#open.length - 1; index >= 0; index--) {
      const group = this.#open[index]!
      if (group.kind !== "group") continue
      this.#open.splice(index, 1)
      for (const bar of group.bars) ops[bar] = { op: "unit", set: CharSet.of(0x7c) }
      const opening: GlobOp[] = []
      for (let unit = group.at; unit <= group.paren; unit++)
        opening.push({ op: "unit", set: CharSet.of(this.#glob.charCodeAt(unit)) })
      ops.splice(group.op, 1, ...opening)
    }
    this.#groups = 0
  }

  /**
   * The `}` at `index` closes the innermost brace: alternatives when it held a comma, else a range when its
   * text spells one, else literal braces around what they hold.
   */
  #closeBrace(index: number): void {
    const brace = this.#open.pop() as OpenBrace
    if (brace.comma) {
      this.#push({ op: "close" }, "brace-end")
      return
    }
    const range = braceRange(this.#glob.slice(brace.at + 1, index))
    if (!range) {
      this.#ops[brace.op] = { op: "unit", set: CharSet.of(0x7b) }
      this.#push({ op: "unit", set: CharSet.of(0x7d) }, "brace-end")
      return
    }
    this.#ops.length = brace.op
    if (range.kind === "characters") {
      this.#push({ op: "unit", set: new CharSet().add(range.low, range.high) }, "brace-end")
      return
    }
    this.#rangeValues += range.count
    const values = this.#rangeValues <= MAX_RANGE_VALUES ? range.values(range.count) : []
    for (const op of alternatives(values)) this.#ops.push(op)
    this.#previous = "brace-end"
  }

  /**
   * A run of `*` at `index`: a star, or (exactly two, alone in their segment) a globstar. Inside a group
   * it is a star whatever its length; a `*` just before `(` opens a group.
   */
  #stars(index: number): number {
    const glob = this.#glob
    let end = index
    while (glob[end] === "*") end++
    if (glob[end] === "(") {
      if (end - 1 > index) this.#push({ op: "star" }, "star")
      this.#openGroup(end - 1, end, "*")
      return end + 1
    }
    const previous = this.#previous
    if (this.#groups > 0) {
      this.#push({ op: "star" }, "star")
      return end
    }
    const atSegmentStart = previous === "start" || previous === "slash"
    const inBraces = this.#open.length > 0 && (previous === "brace-start" || previous === "brace-end")
    if (end - index !== 2 || !(atSegmentStart || inBraces)) {
      this.#push({ op: "star", ahead: end - index === 1 && atSegmentStart }, "star")
      return end
    }
    // `/**` repeated (`a/**/**/b`) is one globstar.
    while (glob.startsWith("/**", end) && (end + 3 === glob.length || glob[end + 3] === "/")) end += 3
    const atEnd = end === glob.length
    const slashNext = glob[end] === "/"
    if (previous === "start" && atEnd) {
      this.#push({ op: "any" }, "star")
      return end
    }
    if (previous === "slash" && !this.#slashFirst && !this.#slashAfterStar && atEnd) {
      // `dir/**`: the directory itself, or `/` and anything below it.
      this.#ops.pop()
      this.#ops.push({ op: "open" }, { op: "unit", set: CharSet.of(SLASH) }, { op: "any" }, { op: "or" })
      this.#push({ op: "close" }, "star")
      return end
    }
    if (slashNext && ((previous === "slash" && !this.#slashFirst) || previous === "start")) {
      const ops = this.#ops
      if (previous === "start") {
        // `**/` at the start: zero or more directories.
        ops.push(
          { op: "open" },
          { op: "any" },
          { op: "unit", set: CharSet.of(SLASH) },
          { op: "or" },
          { op: "close" },
        )
      } else {
        // `/**/`: `/`, then zero or more directories; or, when more follows, the end of the path (so that
        // `a/**/{,b}` matches `a`, as in picomatch).
        ops.pop()
        const slash = (): GlobOp => ({ op: "unit", set: CharSet.of(SLASH) })
        ops.push({ op: "open" }, slash(), { op: "any" }, slash(), { op: "or" }, slash())
        if (end + 1 < glob.length) ops.push({ op: "or" }, { op: "end" })
        ops.push({ op: "close" })
      }
      this.#slashFirst = false
      this.#slashAfterStar = true
      this.#previous = "slash"
      return end + 1
    }
    // Any text across segments when a `/`, the end, or (in braces) `,`, `{` or `}` comes next; else a `*`.
    const next = glob[end] === "\\" && glob[end + 1] === "/" ? "/" : glob[end]
    const keeps =
      next === undefined ||
      next === "/" ||
      next === "{" ||
      (this.#open.length > 0 && (next === "," || next === "}"))
    this.#push({ op: keeps ? "any" : "star" }, "star")
    return end
  }

  #push(op: GlobOp, previous: Previous): void {
    this.#ops.push(op)
    this.#previous = previous
  }
}

/** `values` as one group sharing common prefixes (a trie), so a range of numbers stays small to match. */
function alternatives(values: readonly string[]): GlobOp[] {
  const ops: GlobOp[] = []
  // Recursion one level per character of the longest value (a number: at most 16 digits deep).
  const emit = (group: readonly string[], depth: number): void => {
    const ends = group.some((value) => value.length === depth)
    const byUnit = new Map<number, string[]>()
    for (const value of group)
      if (value.length > depth) {
        const unit = value.charCodeAt(depth)
        const same = byUnit.get(unit)
        if (same) same.push(value)
        else byUnit.set(unit, [value])
      }
    const branches = [...byUnit]
    const single = branches.length === 1 && !ends
    if (!single) ops.push({ op: "open" })
    branches.forEach(([unit, same], position) => {
      if (position > 0) ops.push({ op: "or" })
      ops.push({ op: "unit", set: CharSet.of(unit) })
      emit(same, depth + 1)
    })
    if (!single) {
      if (ends && branches.length > 0) ops.push({ op: "or" })
      ops.push({ op: "close" })
    }
  }
  if (values.length === 0) return [{ op: "open" }, { op: "unit", set: new CharSet() }, { op: "close" }]
  emit(values, 0)
  return ops
}
