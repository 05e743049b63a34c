// A glob's bracket expression (`[abc]`, `[a-z]`, `[!a]`, `[^a]`, `[[:alpha:]]`), read the way picomatch
// read it, so that a glob keeps matching what it matched.
import { CharSet } from "./glob-charset.ts"

/** The POSIX classes picomatch knew, as inclusive code unit ranges. */
const POSIX: Readonly<Record<string, readonly (readonly [number, number])[]>> = {
  alnum: [range("a", "z"), range("A", "Z"), range("0", "9")],
  alpha: [range("a", "z"), range("A", "Z")],
  ascii: [[0x00, 0x7f]],
  blank: [range(" ", " "), range("\t", "\t")],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [range("0", "9")],
  graph: [[0x21, 0x7e]],
  lower: [range("a", "z")],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [range(" ", " "), [0x09, 0x0d]],
  upper: [range("A", "Z")],
  word: [range("a", "z"), range("A", "Z"), range("0", "9"), range("_", "_")],
  xdigit: [range("a", "f"), range("A", "F"), range("0", "9")],
}

/** Characters that, inside the brackets, make picomatch read `[…]` only as a class (see `literal`). */
const CLASS_ONLY = /[-*+?.^${}(|)[\]\\]/

export interface BracketClass {
  readonly set: CharSet
  /** The index just past the closing `]`. */
  readonly end: number
  /**
   * The brackets as literal text, when they match that too: picomatch matched `[id]` both as a class and
   * as the literal name `[id]` (as in a Next.js route `app/[id]/page.tsx`) whenever the brackets hold no
   * range, negation or other special character.
   */
  readonly literal: string | undefined
  /** A range written backwards (`[z-a]`): picomatch's regular expression failed to compile, so the glob matched nothing. */
  readonly invalid: boolean
}

/**
 * The bracket expression opening at `glob[start]` (a `[`), or undefined when no `]` closes it (the `[` is
 * then a literal). `!` or `^` first negates; a `]` first is a member; `\` escapes the next character; `a-z`
 * is a range; `[:name:]` is a POSIX class. A negated class never matches `/`.
 */
export function parseBracket(glob: string, start: number): BracketClass | undefined {
  const set = new CharSet()
  let index = start + 1
  const negated = glob[index] === "!" || glob[index] === "^"
  if (negated) index++
  const first = index
  let invalid = false
  while (index < glob.length) {
    if (glob[index] === "]" && index > first) {
      if (negated) set.add(0x2f, 0x2f).negate()
      const inside = glob.slice(start + 1, index)
      const literal = CLASS_ONLY.test(inside) ? undefined : glob.slice(start, index + 1)
      return { set, end: index + 1, literal, invalid }
    }
    const posix = posixClass(glob, index)
    if (posix) {
      for (const [low, high] of posix.ranges) set.add(low, high)
      index = posix.end
      continue
    }
    const low = member(glob, index)
    index = low.end
    if (glob[index] === "-" && index + 1 < glob.length && glob[index + 1] !== "]") {
      const high = member(glob, index + 1)
      index = high.end
      if (low.code > high.code) invalid = true
      else set.add(low.code, high.code)
    } else set.add(low.code, low.code)
  }
  return undefined
}

/** One member at `index`: a character, or `\` and the character it escapes. */
function member(glob: string, index: number): { code: number; end: number } {
  if (glob[index] === "\\" && index + 1 < glob.length)
    return { code: glob.charCodeAt(index + 1), end: index + 2 }
  return { code: glob.charCodeAt(index), end: index + 1 }
}

/** `[:name:]` at `index` when `name` is a POSIX class picomatch knew. */
function posixClass(
  glob: string,
  index: number,
): { ranges: readonly (readonly [number, number])[]; end: number } | undefined {
  if (!glob.startsWith("[:", index)) return undefined
  const close = glob.indexOf(":]", index + 2)
  if (close < 0) return undefined
  const ranges = Object.hasOwn(POSIX, glob.slice(index + 2, close))
    ? POSIX[glob.slice(index + 2, close)]
    : undefined
  return ranges ? { ranges, end: close + 2 } : undefined
}

function range(low: string, high: string): readonly [number, number] {
  return [low.charCodeAt(0), high.charCodeAt(0)]
}
