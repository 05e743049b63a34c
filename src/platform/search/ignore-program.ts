// An ignore file's glob (.gitignore, .ignore, .rgignore: a repository's own text, so anyone's) as a
// program for the glob automaton (glob-automaton.ts), which decides a path in one pass over it. Compiled
// to a backtracking regular expression instead, a line such as `*a*a*a*a*a*b` froze every search of the
// repository on one long file name.
import { GlobAutomaton } from "./glob-automaton.ts"
import { CharSet } from "./glob-charset.ts"
import type { GlobOp } from "./glob-ops.ts"

/** A piece of an ignore glob, as ignore-file.ts reads it (ripgrep's gitignore rules). */
export type IgnoreToken =
  /** One character (a code point). */
  | { readonly t: "lit"; readonly ch: string }
  /** `?`: one character that is not `/`. */
  | { readonly t: "any" }
  /** `*`: any run of characters without `/`. */
  | { readonly t: "star" }
  /** A leading `**` + `/`: any leading directories, or none. */
  | { readonly t: "prefix" }
  /** A trailing `/` + `**`: everything inside. */
  | { readonly t: "suffix" }
  /** `/` + `**` + `/`: one `/`, or any directories between two. */
  | { readonly t: "middle" }
  /** `[…]`: ranges of code points, or (negated) any character outside them. */
  | { readonly t: "class"; readonly negated: boolean; readonly ranges: readonly [string, string][] }
  /** `{a,b}`: one of the branches. */
  | { readonly t: "alt"; readonly branches: readonly IgnoreToken[][] }

/** Whether a text matches the tokens as a whole. */
export type IgnoreTest = (text: string) => boolean

const SLASH = 0x2f
const HIGH = [0xd800, 0xdbff] as const
const LOW = [0xdc00, 0xdfff] as const
const LAST_CODE_POINT = 0x10ffff

/** The matcher for `tokens`, in time linear in the text whatever the tokens. */
export function ignoreTest(tokens: readonly IgnoreToken[]): IgnoreTest {
  const automaton = new GlobAutomaton(toOps(tokens))
  return (text) => automaton.accepts(automaton.run(automaton.start, text))
}

function toOps(tokens: readonly IgnoreToken[]): GlobOp[] {
  const ops: GlobOp[] = []
  for (const token of tokens) {
    switch (token.t) {
      case "lit":
        for (let index = 0; index < token.ch.length; index++) ops.push(unit(token.ch.charCodeAt(index)))
        break
      case "any":
        ops.push(...characterOf([[0, LAST_CODE_POINT]], true))
        break
      case "star":
        ops.push({ op: "star" })
        break
      case "prefix":
        // Nothing, or any run ending in `/`.
        ops.push({ op: "open" }, { op: "or" }, { op: "any" }, unit(SLASH), { op: "close" })
        break
      case "suffix":
        ops.push(unit(SLASH), { op: "any" })
        break
      case "middle":
        ops.push(unit(SLASH), { op: "open" }, { op: "or" }, { op: "any" }, unit(SLASH), { op: "close" })
        break
      case "class": {
        const ranges = token.ranges.map(([low, high]) => [low.codePointAt(0)!, high.codePointAt(0)!] as const)
        ops.push(...characterOf(token.negated ? complement(ranges) : ranges))
        break
      }
      case "alt":
        ops.push({ op: "open" })
        token.branches.forEach((branch, index) => {
          if (index > 0) ops.push({ op: "or" })
          ops.push(...toOps(branch))
        })
        ops.push({ op: "close" })
        break
    }
  }
  return ops
}

function unit(code: number): GlobOp {
  return { op: "unit", set: CharSet.of(code) }
}

/**
 * One character (a code point, as the `u` flag of a regular expression reads text) of `ranges`, in
 * UTF-16 code units: one unit for the Basic Multilingual Plane, a surrogate pair above it.
 * `noSlash` leaves `/` out (`?` never matches it).
 */
function characterOf(ranges: readonly (readonly [number, number])[], noSlash = false): GlobOp[] {
  const single = new CharSet()
  const pairs: GlobOp[][] = []
  for (const [low, high] of ranges) {
    // The units of the plane below the surrogates, and above them.
    for (const [from, to] of [
      [low, Math.min(high, HIGH[0] - 1)],
      [Math.max(low, LOW[1] + 1), Math.min(high, 0xffff)],
    ] as const) {
      if (from > to) continue
      if (noSlash && from <= SLASH && SLASH <= to) {
        if (from < SLASH) single.add(from, SLASH - 1)
        if (SLASH < to) single.add(SLASH + 1, to)
      } else single.add(from, to)
    }
    if (high > 0xffff) pairs.push(...surrogatePairs(Math.max(low, 0x10000), high))
  }
  const alternatives: GlobOp[][] = [[{ op: "unit", set: single }], ...pairs]
  if (alternatives.length === 1) return alternatives[0]!
  const ops: GlobOp[] = [{ op: "open" }]
  alternatives.forEach((alternative, index) => {
    if (index > 0) ops.push({ op: "or" })
    ops.push(...alternative)
  })
  ops.push({ op: "close" })
  return ops
}

/** The code points from `low` to `high` (both above 0xFFFF) as alternatives of surrogate pairs. */
function surrogatePairs(low: number, high: number): GlobOp[][] {
  const split = (code: number) => [HIGH[0] + ((code - 0x10000) >> 10), LOW[0] + ((code - 0x10000) & 0x3ff)]
  const [firstHigh, firstLow] = split(low) as [number, number]
  const [lastHigh, lastLow] = split(high) as [number, number]
  const pair = (highFrom: number, highTo: number, lowFrom: number, lowTo: number): GlobOp[] => [
    { op: "unit", set: new CharSet().add(highFrom, highTo) },
    { op: "unit", set: new CharSet().add(lowFrom, lowTo) },
  ]
  if (firstHigh === lastHigh) return [pair(firstHigh, firstHigh, firstLow, lastLow)]
  const out = [pair(firstHigh, firstHigh, firstLow, LOW[1])]
  if (lastHigh - firstHigh > 1) out.push(pair(firstHigh + 1, lastHigh - 1, LOW[0], LOW[1]))
  out.push(pair(lastHigh, lastHigh, LOW[0], lastLow))
  return out
}

/** Every code point outside `ranges`. */
function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  const out: [number, number][] = []
  let next = 0
  for (const [low, high] of sorted) {
    if (low > next) out.push([next, low - 1])
    next = Math.max(next, high + 1)
  }
  if (next <= LAST_CODE_POINT) out.push([next, LAST_CODE_POINT])
  return out
}
