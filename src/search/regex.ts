// ripgrep's regex syntax (Rust `regex`) translated to a JavaScript RegExp with the same line-by-line
// semantics, plus the literals every match must contain (the fallback looks for those first).
import { SearchPatternError } from "./backend.ts"

/** A literal the prefilter looks for. `fold`: ASCII letters match in either case (`text` is lowercase). */
export interface Literal {
  readonly text: string
  readonly fold: boolean
}

export interface CompiledPattern {
  /** JavaScript source for the `v` flag; never matches across a `\n`; `^`/`$` are line anchors. */
  readonly source: string
  /** The same, valid only on pure-ASCII text (native `\w`, `\b`, ...: faster). */
  readonly asciiSource: string
  /** `v`, plus `i` when the whole pattern is case-insensitive. */
  readonly flags: string
  /** Every match contains one of these; null when no useful literal was found. */
  readonly literals: readonly Literal[] | null
  /** A line containing one of `literals` always matches: the regex need not confirm it. */
  readonly literalIsMatch: boolean
}

export interface PatternOptions {
  readonly fixedStrings?: boolean
  readonly ignoreCase?: boolean
}

/**
 * Compiles a ripgrep pattern for the fallback.
 * 1. Parse the Rust `regex` syntax into a tree (errors name the problem as ripgrep does; look-around
 *    and backreferences are rejected, as ripgrep rejects them).
 * 2. Emit JavaScript (`v` flag): Unicode-aware `\w`, `\d`, `\s`, `\b` as ripgrep has them, `.` and negated
 *    classes never matching `\n`, `^`/`$` as line anchors, inline flags as modifier groups, POSIX classes
 *    as ranges, `\x{...}` as `\u{...}`.
 * 3. Extract the literals every match contains (case-folded where the pattern ignores case).
 */
export function compilePattern(pattern: string, options: PatternOptions = {}): CompiledPattern {
  const root = options.fixedStrings
    ? literalNode(pattern, options.ignoreCase ?? false)
    : new Parser(pattern, options.ignoreCase ?? false).parse()
  if (hasNewline(root)) {
    throw new SearchPatternError(pattern, 'the literal "\\n" is not allowed: grep matches one line at a time')
  }
  const caseless = allCaseless(root) && hasCased(root)
  const source = emit(root, { ascii: false, ci: caseless })
  const asciiSource = emit(root, { ascii: true, ci: caseless })
  const flags = caseless ? "iv" : "v"
  for (const src of [source, asciiSource]) {
    try {
      new RegExp(src, flags)
    } catch (error) {
      throw new SearchPatternError(pattern, `cannot be translated (${(error as Error).message})`)
    }
  }
  const info = literalInfo(root)
  const literals = best([info.exact, info.required])
  return {
    source,
    asciiSource,
    flags,
    literals,
    literalIsMatch: literals !== null && info.pure && info.exact !== null && literals === info.exact,
  }
}

// ---------------------------------------------------------------------------------------------------
// The tree

interface Flags {
  readonly i: boolean
  readonly u: boolean
  readonly x: boolean
  readonly U: boolean
}

type Node =
  | { readonly type: "lit"; readonly cp: number; readonly ci: boolean }
  | { readonly type: "any" }
  | { readonly type: "class"; readonly set: ClassSet; readonly ci: boolean }
  | { readonly type: "assert"; readonly kind: "start" | "end" | "word" | "notWord"; readonly u: boolean }
  | { readonly type: "group"; readonly node: Node }
  | { readonly type: "concat"; readonly items: readonly Node[] }
  | { readonly type: "alt"; readonly items: readonly Node[] }
  | {
      readonly type: "repeat"
      readonly node: Node
      readonly min: number
      readonly max: number
      readonly greedy: boolean
    }

/** A bracket class, a Perl class (`\w`), a Unicode property or a POSIX class, as a set of code points. */
type ClassSet =
  | { readonly kind: "union"; readonly negated: boolean; readonly items: readonly ClassItem[] }
  | {
      readonly kind: "op"
      readonly negated: boolean
      readonly op: "&&" | "--" | "~~"
      readonly left: ClassSet
      readonly right: ClassSet
    }

type ClassItem =
  | { readonly kind: "char"; readonly cp: number }
  | { readonly kind: "range"; readonly lo: number; readonly hi: number }
  | { readonly kind: "perl"; readonly perl: "d" | "s" | "w"; readonly negated: boolean; readonly u: boolean }
  | { readonly kind: "prop"; readonly name: string; readonly negated: boolean }
  | { readonly kind: "posix"; readonly name: string; readonly negated: boolean }
  | { readonly kind: "set"; readonly set: ClassSet }

function hasNewline(node: Node): boolean {
  switch (node.type) {
    case "lit":
      return node.cp === 10
    case "class":
      return (
        node.set.kind === "union" &&
        !node.set.negated &&
        node.set.items.some((item) => item.kind === "char" && item.cp === 10)
      )
    case "group":
    case "repeat":
      return hasNewline(node.node)
    case "concat":
    case "alt":
      return node.items.some(hasNewline)
    default:
      return false
  }
}

function literalNode(text: string, ci: boolean): Node {
  return { type: "concat", items: Array.from(text, (ch) => ({ type: "lit", cp: ch.codePointAt(0)!, ci })) }
}

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\x09\\x20",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "\\x21-\\x7E",
  lower: "a-z",
  print: "\\x20-\\x7E",
  punct: "\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E",
  space: "\\x09-\\x0D\\x20",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
}

// Characters Rust lets you escape (the meta characters) and, leniently, any ASCII punctuation (as newer
// versions of ripgrep do).
const ESCAPABLE = new Set(Array.from("\\.+*?()|[]{}^$#&-~!\"%',/:;<=>@_`"))

// ---------------------------------------------------------------------------------------------------
// The parser (Rust regex syntax, as ripgrep 13+ accepts it)

class Parser {
  readonly #pattern: string
  readonly #cps: number[]
  #pos = 0
  readonly #names = new Set<string>()
  readonly #ignoreCase: boolean

  constructor(pattern: string, ignoreCase: boolean) {
    this.#pattern = pattern
    this.#cps = Array.from(pattern, (ch) => ch.codePointAt(0)!)
    this.#ignoreCase = ignoreCase
  }

  parse(): Node {
    const flags: Flags = { i: this.#ignoreCase, u: true, x: false, U: false }
    const node = this.#alternation(flags)
    if (this.#pos < this.#cps.length) this.#fail("unopened group")
    return node
  }

  #fail(problem: string): never {
    throw new SearchPatternError(this.#pattern, problem)
  }

  #peek(offset = 0): string | undefined {
    const cp = this.#cps[this.#pos + offset]
    return cp === undefined ? undefined : String.fromCodePoint(cp)
  }

  #next(): string {
    const ch = this.#peek()
    if (ch === undefined) this.#fail("unexpected end of pattern")
    this.#pos++
    return ch
  }

  #eat(text: string): boolean {
    const chars = Array.from(text)
    for (let k = 0; k < chars.length; k++) if (this.#peek(k) !== chars[k]) return false
    this.#pos += chars.length
    return true
  }

  #skipVerbose(flags: Flags): void {
    if (!flags.x) return
    for (;;) {
      const ch = this.#peek()
      if (ch !== undefined && /\s/.test(ch)) this.#pos++
      else if (ch === "#") {
        while (this.#peek() !== undefined && this.#peek() !== "\n") this.#pos++
      } else return
    }
  }

  #alternation(flags: Flags): Node {
    const state = { flags }
    const items = [this.#concat(state)]
    while (this.#peek() === "|") {
      this.#pos++
      items.push(this.#concat(state))
    }
    return items.length === 1 ? items[0]! : { type: "alt", items }
  }

  /** One branch; `state.flags` changes with inline `(?i)` and the change lasts to the group's end. */
  #concat(state: { flags: Flags }): Node {
    const items: Node[] = []
    for (;;) {
      this.#skipVerbose(state.flags)
      const ch = this.#peek()
      if (ch === undefined || ch === "|" || ch === ")") break
      const flags = state.flags
      if (ch === "*" || ch === "+" || ch === "?") {
        this.#pos++
        const last = items.pop()
        if (!last) this.#fail("repetition operator missing expression")
        const [min, max] = ch === "*" ? [0, Infinity] : ch === "+" ? [1, Infinity] : [0, 1]
        items.push(this.#repeat(last, min, max, flags))
        continue
      }
      if (ch === "{") {
        const last = items.pop()
        if (!last) this.#fail("repetition operator missing expression")
        const [min, max] = this.#counted()
        items.push(this.#repeat(last, min, max, flags))
        continue
      }
      if (ch === "(") {
        const group = this.#group(state)
        if (group) items.push(group)
        continue
      }
      if (ch === "[") {
        this.#pos++
        items.push({ type: "class", set: this.#classBody(flags), ci: flags.i })
        continue
      }
      this.#pos++
      if (ch === ".") items.push({ type: "any" })
      else if (ch === "^") items.push({ type: "assert", kind: "start", u: flags.u })
      else if (ch === "$") items.push({ type: "assert", kind: "end", u: flags.u })
      else if (ch === "\\") items.push(this.#escape(flags))
      else items.push({ type: "lit", cp: ch.codePointAt(0)!, ci: flags.i })
    }
    return items.length === 1 ? items[0]! : { type: "concat", items }
  }

  #repeat(node: Node, min: number, max: number, flags: Flags): Node {
    let greedy = true
    if (this.#peek() === "?") {
      this.#pos++
      greedy = false
    }
    return { type: "repeat", node, min, max, greedy: flags.U ? !greedy : greedy }
  }

  #counted(): [number, number] {
    this.#pos++ // {
    const number = (): number | undefined => {
      let digits = ""
      while (/[0-9]/.test(this.#peek() ?? "")) digits += this.#next()
      return digits === "" ? undefined : Number(digits)
    }
    const min = number()
    if (min === undefined) {
      if (this.#peek() === undefined) this.#fail("unclosed counted repetition")
      this.#fail("repetition quantifier expects a valid decimal")
    }
    let max = min
    if (this.#eat(",")) max = number() ?? Infinity
    if (this.#peek() === undefined) this.#fail("unclosed counted repetition")
    if (!this.#eat("}")) this.#fail("repetition quantifier expects a valid decimal")
    if (max < min) this.#fail("invalid repetition count range, the start must be <= the end")
    return [min, max]
  }

  /** A group, or an inline flag change (returns undefined and changes `state.flags`). */
  #group(state: { flags: Flags }): Node | undefined {
    this.#pos++ // (
    let flags = state.flags
    if (this.#eat("?")) {
      if (this.#eat("=") || this.#eat("!") || this.#eat("<=") || this.#eat("<!")) {
        this.#fail("look-around, including look-ahead and look-behind, is not supported")
      }
      if (this.#eat("P<") || this.#eat("<")) {
        let name = ""
        while (this.#peek() !== undefined && this.#peek() !== ">") name += this.#next()
        if (!this.#eat(">")) this.#fail("unclosed capture group name")
        if (!/^[A-Za-z_][A-Za-z0-9_.[\]]*$/.test(name)) this.#fail("invalid capture group character")
        if (this.#names.has(name)) this.#fail("duplicate capture group name")
        this.#names.add(name)
      } else if (!this.#eat(":")) {
        let negate = false
        let changed = { ...flags }
        for (;;) {
          const ch = this.#peek()
          if (ch === undefined) this.#fail("unclosed group")
          this.#pos++
          if (ch === ":" || ch === ")") {
            if (ch === ")") {
              state.flags = changed
              return undefined
            }
            flags = changed
            break
          }
          if (ch === "-") {
            if (negate) this.#fail("repeated negation")
            negate = true
          } else if (ch === "i" || ch === "u" || ch === "x" || ch === "U")
            changed = { ...changed, [ch]: !negate }
          else if (ch === "m" || ch === "s" || ch === "R") {
            // Multi-line and dot-all change nothing line by line; CRLF mode is not supported.
            if (ch === "R" && !negate) this.#fail("CRLF mode (?R) is not supported")
          } else this.#fail("unrecognized flag")
        }
      }
    }
    const node = this.#alternation(flags)
    if (!this.#eat(")")) this.#fail("unclosed group")
    return { type: "group", node }
  }

  #escape(flags: Flags): Node {
    const ch = this.#peek()
    if (ch === undefined) this.#fail("incomplete escape sequence, reached end of pattern prematurely")
    switch (ch) {
      case "b":
      case "B":
        this.#pos++
        return { type: "assert", kind: ch === "b" ? "word" : "notWord", u: flags.u }
      case "A":
        this.#pos++
        return { type: "assert", kind: "start", u: flags.u }
      case "z":
        this.#pos++
        return { type: "assert", kind: "end", u: flags.u }
    }
    const item = this.#escapeItem(flags)
    if (item.kind === "char") return { type: "lit", cp: item.cp, ci: flags.i }
    return { type: "class", set: { kind: "union", negated: false, items: [item] }, ci: flags.i }
  }

  /** An escape that stands for a character or a class (shared by both contexts). */
  #escapeItem(flags: Flags): ClassItem {
    const ch = this.#next()
    switch (ch) {
      case "n":
        return { kind: "char", cp: 10 }
      case "t":
        return { kind: "char", cp: 9 }
      case "r":
        return { kind: "char", cp: 13 }
      case "f":
        return { kind: "char", cp: 12 }
      case "v":
        return { kind: "char", cp: 11 }
      case "a":
        return { kind: "char", cp: 7 }
      case "d":
      case "s":
      case "w":
        return { kind: "perl", perl: ch, negated: false, u: flags.u }
      case "D":
      case "S":
      case "W":
        return { kind: "perl", perl: ch.toLowerCase() as "d" | "s" | "w", negated: true, u: flags.u }
      case "x":
        return { kind: "char", cp: this.#hex(2) }
      case "u":
        return { kind: "char", cp: this.#hex(4) }
      case "U":
        return { kind: "char", cp: this.#hex(8) }
      case "p":
      case "P":
        return this.#property(ch === "P")
    }
    if (/[0-9]/.test(ch)) this.#fail("backreferences are not supported")
    // `\<` and `\>` are word boundaries in newer ripgrep and errors in older: not a literal either way.
    if (ch !== "<" && ch !== ">" && (ESCAPABLE.has(ch) || ch === " "))
      return { kind: "char", cp: ch.codePointAt(0)! }
    this.#fail("unrecognized escape sequence")
  }

  #hex(width: number): number {
    let digits = ""
    if (this.#eat("{")) {
      while (this.#peek() !== undefined && this.#peek() !== "}") digits += this.#next()
      if (!this.#eat("}")) this.#fail("unclosed hexadecimal literal")
      if (digits === "") this.#fail("hexadecimal literal empty")
    } else {
      for (let k = 0; k < width; k++) {
        const ch = this.#peek()
        if (ch === undefined) this.#fail("incomplete escape sequence, reached end of pattern prematurely")
        digits += this.#next()
      }
    }
    if (!/^[0-9A-Fa-f]+$/.test(digits)) this.#fail("invalid hexadecimal digit")
    const cp = Number.parseInt(digits, 16)
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      this.#fail("hexadecimal literal is not a Unicode scalar value")
    }
    return cp
  }

  #property(negated: boolean): ClassItem {
    let name: string
    if (this.#eat("{")) {
      name = ""
      while (this.#peek() !== undefined && this.#peek() !== "}") name += this.#next()
      if (!this.#eat("}")) this.#fail("unclosed Unicode class literal")
    } else {
      const ch = this.#peek()
      if (ch === undefined) this.#fail("incomplete escape sequence, reached end of pattern prematurely")
      name = this.#next()
    }
    if (name.startsWith("^")) {
      negated = !negated
      name = name.slice(1)
    }
    const property = unicodeProperty(name)
    if (property === undefined) this.#fail(`Unicode property not found: \\p{${name}}`)
    return { kind: "prop", name: property.name, negated: property.negated ? !negated : negated }
  }

  /** After `[`: the class up to its `]`. */
  #classBody(flags: Flags): ClassSet {
    const negated = this.#eat("^")
    let left: ClassSet | undefined
    let op: "&&" | "--" | "~~" | undefined
    let items: ClassItem[] = []
    let first = true
    const close = (): ClassSet => {
      const union: ClassSet = { kind: "union", negated: false, items }
      if (!left || !op) return { ...union, negated } as ClassSet
      return { kind: "op", negated, op, left, right: union }
    }
    for (;;) {
      if (flags.x) while (/\s/.test(this.#peek() ?? "x")) this.#pos++
      const ch = this.#peek()
      if (ch === undefined) this.#fail("unclosed character class")
      if (ch === "]" && !first) {
        this.#pos++
        if (left && op && items.length === 0) this.#fail("unclosed character class")
        const set = close()
        if (set.kind === "union" && set.items.length === 0)
          this.#fail("empty character classes are not allowed")
        return set
      }
      first = false
      const operator = (["&&", "--", "~~"] as const).find((candidate) => this.#eat(candidate))
      if (operator) {
        left =
          left && op
            ? { ...(close() as ClassSet & { kind: "op" }), negated: false }
            : { kind: "union", negated: false, items }
        op = operator
        items = []
        continue
      }
      if (ch === "[") {
        const posix = this.#posix()
        if (posix) {
          items.push(posix)
          continue
        }
        this.#pos++
        items.push({ kind: "set", set: this.#classBody(flags) })
        continue
      }
      const start = this.#classAtom(flags)
      if (start.kind !== "char") {
        items.push(start)
        continue
      }
      if (
        this.#peek() === "-" &&
        this.#peek(1) !== "]" &&
        this.#peek(1) !== "-" &&
        this.#peek(1) !== undefined
      ) {
        this.#pos++
        const end = this.#classAtom(flags)
        if (end.kind !== "char") this.#fail("invalid character class range")
        if (end.cp < start.cp) this.#fail("invalid character class range, the start must be <= the end")
        items.push({ kind: "range", lo: start.cp, hi: end.cp })
      } else items.push(start)
    }
  }

  #classAtom(flags: Flags): ClassItem {
    const ch = this.#next()
    if (ch !== "\\") return { kind: "char", cp: ch.codePointAt(0)! }
    const next = this.#peek()
    if (next === "b" || next === "B" || next === "A" || next === "z")
      this.#fail("unrecognized escape sequence")
    return this.#escapeItem(flags)
  }

  /** `[:alpha:]` (or `[:^alpha:]`) inside a class; undefined when it is a nested class instead. */
  #posix(): ClassItem | undefined {
    const rest = this.#cps
      .slice(this.#pos, this.#pos + 16)
      .map((cp) => String.fromCodePoint(cp))
      .join("")
    const match = /^\[:(\^?)([a-z]+):\]/.exec(rest)
    if (!match || !(match[2]! in POSIX)) return undefined
    this.#pos += match[0].length
    return { kind: "posix", name: match[2]!, negated: match[1] === "^" }
  }
}

/** Maps a Rust Unicode class name (loose matching) to a JavaScript property expression. */
function unicodeProperty(raw: string): { name: string; negated: boolean } | undefined {
  let negated = false
  let key: string | undefined
  let value = raw.trim()
  const separator = /(!=|=|:)/.exec(value)
  if (separator) {
    key = value.slice(0, separator.index).trim()
    negated = separator[0] === "!="
    value = value.slice(separator.index + separator[0].length).trim()
  }
  const words = value.split(/[\s_-]+/).filter(Boolean)
  const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()
  const variants = [value, words.map(cap).join("_"), words.map(cap).join(""), value.toUpperCase(), cap(value)]
  const keys: string[] = []
  if (key === undefined) keys.push("", "Script_Extensions=", "General_Category=")
  else {
    const normal = key.toLowerCase().replace(/[\s_-]/g, "")
    if (normal === "sc" || normal === "script") keys.push("Script=")
    else if (normal === "scx" || normal === "scriptextensions") keys.push("Script_Extensions=")
    else if (normal === "gc" || normal === "generalcategory") keys.push("General_Category=")
    else return undefined
  }
  for (const prefix of keys) {
    for (const variant of variants) {
      if (variant === "" || !/^[A-Za-z0-9_]+$/.test(variant)) continue
      const name = prefix + variant
      try {
        new RegExp(`\\p{${name}}`, "v")
        return { name, negated }
      } catch {
        // Not a property JavaScript knows under this spelling: try the next.
      }
    }
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------
// Emitting JavaScript

const WORD_U = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}"
const WORD_A = "0-9A-Za-z_"

interface EmitContext {
  /** Emit for pure-ASCII text (native classes). */
  readonly ascii: boolean
  /** Whether the surrounding JavaScript is case-insensitive. */
  readonly ci: boolean
}

function emit(node: Node, ctx: EmitContext): string {
  switch (node.type) {
    case "lit":
      return withCase(node.ci, ctx, escapeChar(node.cp))
    case "any":
      return "[^\\n]"
    case "class":
      return withCase(node.ci, ctx, emitTopClass(node.set, ctx))
    case "assert":
      return emitAssert(node.kind, ctx.ascii || !node.u)
    case "group":
      return `(?:${emit(node.node, ctx)})`
    case "alt":
      return node.items.map((item) => emit(item, ctx)).join("|")
    case "concat":
      return node.items
        .map((item) => (item.type === "alt" ? `(?:${emit(item, ctx)})` : emit(item, ctx)))
        .join("")
    case "repeat": {
      const inner = emit(node.node, ctx)
      const atom = isAtom(node.node, inner) ? inner : `(?:${inner})`
      const max = node.max === Infinity ? "" : String(node.max)
      const quantifier =
        node.min === 0 && node.max === Infinity
          ? "*"
          : node.min === 1 && node.max === Infinity
            ? "+"
            : node.min === 0 && node.max === 1
              ? "?"
              : node.min === node.max
                ? `{${node.min}}`
                : `{${node.min},${max}}`
      return atom + quantifier + (node.greedy ? "" : "?")
    }
  }
}

function isAtom(node: Node, emitted: string): boolean {
  if (node.type === "lit") return !emitted.startsWith("(")
  return node.type === "any" || (node.type === "class" && emitted.startsWith("["))
}

function withCase(ci: boolean, ctx: EmitContext, text: string): string {
  if (ci === ctx.ci) return text
  return ci ? `(?i:${text})` : `(?-i:${text})`
}

function emitAssert(kind: "start" | "end" | "word" | "notWord", ascii: boolean): string {
  if (kind === "start") return "(?<![^\\n])"
  if (kind === "end") return "(?![^\\n])"
  const w = ascii ? `[${WORD_A}]` : `[${WORD_U}]`
  if (kind === "word") return `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`
  return `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))`
}

const SYNTAX = new Set(Array.from("^$\\.*+?()[]{}|/"))

function escapeChar(cp: number): string {
  const ch = String.fromCodePoint(cp)
  if (/[A-Za-z0-9_ ]/.test(ch)) return ch
  if (SYNTAX.has(ch)) return `\\${ch}`
  if (cp >= 0x21 && cp < 0x7f) return ch
  return `\\u{${cp.toString(16)}}`
}

/** A character inside a `v`-mode class: everything but letters and digits as `\u{...}`. */
function classChar(cp: number): string {
  const ch = String.fromCodePoint(cp)
  return /[A-Za-z0-9]/.test(ch) ? ch : `\\u{${cp.toString(16)}}`
}

function emitTopClass(set: ClassSet, ctx: EmitContext): string {
  // Line by line, no class may match the line terminator.
  const inner = emitClassInner(set, ctx)
  if (set.negated) return set.kind === "union" ? `[^${inner}\\n]` : `[^[${inner}]\\n]`
  return mayContainNewline(set) ? `[[${inner}]--\\n]` : `[${inner}]`
}

/** The inside of a class (without brackets and without its own negation). */
function emitClassInner(set: ClassSet, ctx: EmitContext): string {
  if (set.kind === "union") return set.items.map((item) => emitClassItem(item, ctx)).join("")
  const left = emitNested(set.left, ctx)
  const right = emitNested(set.right, ctx)
  if (set.op === "~~") return `[${left}--${right}][${right}--${left}]`
  return `${left}${set.op}${right}`
}

function emitNested(set: ClassSet, ctx: EmitContext): string {
  return `[${set.negated ? "^" : ""}${emitClassInner(set, ctx)}]`
}

function emitClassItem(item: ClassItem, ctx: EmitContext): string {
  switch (item.kind) {
    case "char":
      return classChar(item.cp)
    case "range":
      return `${classChar(item.lo)}-${classChar(item.hi)}`
    case "perl": {
      const ascii = ctx.ascii || !item.u
      const body =
        item.perl === "d"
          ? ascii
            ? "0-9"
            : "\\p{Nd}"
          : item.perl === "w"
            ? ascii
              ? WORD_A
              : WORD_U
            : ascii
              ? "\\t\\n\\x0B\\f\\r "
              : "\\p{White_Space}"
      return item.negated ? `[^${body}]` : body
    }
    case "prop":
      return `${item.negated ? "\\P" : "\\p"}{${item.name}}`
    case "posix":
      return item.negated ? `[^${POSIX[item.name]}]` : POSIX[item.name]!
    case "set":
      return emitNested(item.set, ctx)
  }
}

/** Conservative: whether the class could contain `\n` (then it is subtracted). */
function mayContainNewline(set: ClassSet): boolean {
  if (set.negated) return true
  if (set.kind === "op")
    return set.op === "&&" ? mayContainNewline(set.left) && mayContainNewline(set.right) : true
  return set.items.some(itemMayContainNewline)
}

function itemMayContainNewline(item: ClassItem): boolean {
  switch (item.kind) {
    case "char":
      return item.cp === 10
    case "range":
      return item.lo <= 10 && item.hi >= 10
    case "perl":
      return item.negated ? item.perl !== "s" : item.perl === "s"
    case "prop":
      return true
    case "posix":
      return item.negated || ["ascii", "cntrl", "space"].includes(item.name)
    case "set":
      return mayContainNewline(item.set)
  }
}

/** Whether every case-sensitive-relevant leaf is case-insensitive (then the whole regex gets `i`). */
function allCaseless(node: Node): boolean {
  switch (node.type) {
    case "lit":
    case "class":
      return node.ci
    case "group":
      return allCaseless(node.node)
    case "repeat":
      return allCaseless(node.node)
    case "concat":
    case "alt":
      return node.items.every(allCaseless)
    default:
      return true
  }
}

function hasCased(node: Node): boolean {
  switch (node.type) {
    case "lit":
    case "class":
      return node.ci
    case "group":
    case "repeat":
      return hasCased(node.node)
    case "concat":
    case "alt":
      return node.items.some(hasCased)
    default:
      return false
  }
}

// ---------------------------------------------------------------------------------------------------
// Literals every match contains

interface LiteralInfo {
  /** Every string the node can match, when there are few; null otherwise. */
  readonly exact: Literal[] | null
  /** Every match contains one of these; null when unknown. */
  readonly required: Literal[] | null
  /** No assertion inside (a literal hit is then a match). */
  readonly pure: boolean
}

const MAX_SET = 16
const EMPTY: Literal = { text: "", fold: false }

function literalInfo(node: Node): LiteralInfo {
  switch (node.type) {
    case "lit": {
      const lit = charLiteral(node.cp, node.ci)
      return { exact: lit ? [lit] : null, required: null, pure: true }
    }
    case "class": {
      const chars = smallClass(node.set)
      if (!chars) return { exact: null, required: null, pure: true }
      const lits = chars.map((cp) => charLiteral(cp, node.ci))
      if (lits.some((lit) => lit === null)) return { exact: null, required: null, pure: true }
      return { exact: dedupe(lits as Literal[]), required: null, pure: true }
    }
    case "any":
      return { exact: null, required: null, pure: true }
    case "assert":
      return { exact: [EMPTY], required: null, pure: false }
    case "group":
      return literalInfo(node.node)
    case "repeat": {
      const inner = literalInfo(node.node)
      if (node.min === 1 && node.max === 1) return inner
      if (node.min === 0 && node.max === 1 && inner.exact) {
        return { exact: dedupe([EMPTY, ...inner.exact]), required: null, pure: inner.pure }
      }
      return {
        exact: null,
        required: node.min >= 1 ? best([inner.exact, inner.required]) : null,
        pure: inner.pure,
      }
    }
    case "alt": {
      const infos = node.items.map(literalInfo)
      const pure = infos.every((info) => info.pure)
      const exact = infos.every((info) => info.exact) ? dedupe(infos.flatMap((info) => info.exact!)) : null
      const covers = infos.map((info) => best([info.exact, info.required]))
      const required = covers.every((cover) => cover) ? dedupe(covers.flatMap((cover) => cover!)) : null
      return { exact: exact && exact.length <= MAX_SET ? exact : null, required, pure }
    }
    case "concat": {
      const candidates: (Literal[] | null)[] = []
      let run: Literal[] | null = [EMPTY]
      let allExact = true
      let pure = true
      for (const item of node.items) {
        const info = literalInfo(item)
        pure &&= info.pure
        if (run && info.exact) {
          const product = cross(run, info.exact)
          if (product) {
            run = product
            continue
          }
          allExact = false
        }
        if (!info.exact) allExact = false
        candidates.push(run, info.required)
        run = info.exact
        if (!run) allExact = false
      }
      candidates.push(run)
      return { exact: allExact ? run : null, required: best(candidates), pure }
    }
  }
}

/** The literal for one character, or null when case folding makes it unsearchable as bytes. */
function charLiteral(cp: number, ci: boolean): Literal | null {
  const ch = String.fromCodePoint(cp)
  if (!ci) return { text: ch, fold: false }
  if (/[A-Za-z]/.test(ch)) {
    // K and S also fold to non-ASCII characters (KELVIN SIGN, LONG S): no byte-level search for them.
    return /[ksKS]/.test(ch) ? null : { text: ch.toLowerCase(), fold: true }
  }
  if (cp < 0x80) return { text: ch, fold: false }
  return ch.toLowerCase() === ch && ch.toUpperCase() === ch && !FOLDS_TO_ASCII.has(cp)
    ? { text: ch, fold: false }
    : null
}

// Non-ASCII characters whose simple case folding reaches ASCII letters.
const FOLDS_TO_ASCII = new Set([0x212a, 0x17f])

function smallClass(set: ClassSet): number[] | null {
  if (set.kind !== "union" || set.negated) return null
  const out: number[] = []
  for (const item of set.items) {
    if (item.kind === "char") out.push(item.cp)
    else if (item.kind === "range" && item.hi - item.lo < 4)
      for (let cp = item.lo; cp <= item.hi; cp++) out.push(cp)
    else return null
    if (out.length > 4) return null
  }
  return out
}

function cross(left: Literal[], right: Literal[]): Literal[] | null {
  if (left.length * right.length > MAX_SET) return null
  const out: Literal[] = []
  for (const a of left) {
    for (const b of right) {
      const fold = a.fold || b.fold
      out.push({ text: (fold ? asciiLower(a.text) : a.text) + (fold ? asciiLower(b.text) : b.text), fold })
    }
  }
  return dedupe(out)
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (ch) => ch.toLowerCase())
}

function dedupe(lits: Literal[]): Literal[] {
  const seen = new Map<string, Literal>()
  for (const lit of lits) {
    const key = `${lit.fold ? 1 : 0}${lit.text}`
    if (!seen.has(key)) seen.set(key, lit)
  }
  return [...seen.values()]
}

/** The most selective cover: longest shortest literal, then fewest literals; never one holding "". */
function best(candidates: readonly (Literal[] | null)[]): Literal[] | null {
  let winner: Literal[] | null = null
  let winnerScore = -Infinity
  for (const candidate of candidates) {
    if (!candidate || candidate.length === 0 || candidate.length > MAX_SET) continue
    const shortest = Math.min(...candidate.map((lit) => Buffer.byteLength(lit.text)))
    if (shortest === 0) continue
    const score = Math.min(shortest, 8) * 100 - candidate.length - (candidate.some((lit) => lit.fold) ? 1 : 0)
    if (score > winnerScore) {
      winner = candidate
      winnerScore = score
    }
  }
  return winner
}
