// The parser for ripgrep's regex syntax (Rust `regex`, as ripgrep 13+ accepts it): pattern text to tree,
// failing with the problem named as ripgrep names it.
import { SearchPatternError } from "./backend.ts"
import { type ClassItem, type ClassSet, type Flags, type Node, POSIX } from "./regex-tree.ts"
import { unicodeProperty } from "./regex-unicode-property.ts"

// Characters Rust lets you escape (the meta characters) and, leniently, any ASCII punctuation (as newer
// versions of ripgrep do).
const ESCAPABLE = new Set(Array.from("\\.+*?()|[]{}^$#&-~!\"%',/:;<=>@_`"))

export class Parser {
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
