// The pattern tree emitted as JavaScript (`v` flag) with ripgrep's line-by-line semantics.
import { type ClassItem, type ClassSet, type Node, POSIX } from "./regex-tree.ts"

const WORD_U = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}"
const WORD_A = "0-9A-Za-z_"

export interface EmitContext {
  /** Emit for pure-ASCII text (native classes). */
  readonly ascii: boolean
  /** Whether the surrounding JavaScript is case-insensitive. */
  readonly ci: boolean
}

export function emit(node: Node, ctx: EmitContext): string {
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
export function allCaseless(node: Node): boolean {
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

export function hasCased(node: Node): boolean {
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
