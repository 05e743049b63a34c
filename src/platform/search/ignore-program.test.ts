import { describe, expect, it } from "vitest"
import { seededRandom } from "../../../test/fixtures/seeded-random.ts"
import { IGNORE, IgnoreFile, NONE, parseGlob } from "./ignore-file.ts"
import { type IgnoreToken, ignoreTest } from "./ignore-program.ts"

/** The regular expression ignore globs were once compiled to (`u` flag): the reference for the answers. */
function reference(tokens: readonly IgnoreToken[]): RegExp {
  const source = (list: readonly IgnoreToken[]): string =>
    list
      .map((token) => {
        switch (token.t) {
          case "lit":
            return token.ch.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
          case "any":
            return "[^/]"
          case "star":
            return "[^/]*"
          case "prefix":
            return "(?:/?|[^]*/)"
          case "suffix":
            return "/[^]*"
          case "middle":
            return "(?:/|/[^]*/)"
          case "class": {
            const inClass = (ch: string) => (/[\\\]^[-]/.test(ch) ? `\\${ch}` : ch)
            const body = token.ranges.map(([low, high]) => `${inClass(low)}-${inClass(high)}`).join("")
            return `[${token.negated ? "^" : ""}${body}]`
          }
          case "alt":
            return `(?:${token.branches.map(source).join("|")})`
          default:
            return ""
        }
      })
      .join("")
  return new RegExp(`^${source(tokens)}$`, "u")
}

const { next, pick } = seededRandom(0x9e3779b9)

const GLOB_PIECES = [
  ...["a", "b", "é", "😀", "𝔸", ".", "/", "*", "?", "**/", "/**", "/**/", "\\*"],
  ...["[a-c]", "[!a]", "[😀-😂]", "[^é-ë]", "[!😀]", "[\u{10000}-😀]", "{a,b}", "{😀,x/y}"],
]
const TEXT_UNITS = [
  ...["a", "b", "c", "é", "ë", "😀", "😁", "𝔸", ".", "/", "*", "x", "y"],
  // The edges of the astral planes and of their surrogate pairs.
  ...["\u{10000}", "\u{103ff}", "\u{10400}", "\u{1f5ff}", "\u{1f601}", "\u{10fc00}", "\u{10ffff}"],
]

describe("ignore globs run by the automaton", () => {
  it("answer as the anchored regular expression with the u flag does, astral characters included", () => {
    const differ: string[] = []
    let matched = 0
    for (let round = 0; round < 6000; round++) {
      const glob = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(GLOB_PIECES)).join("")
      let tokens: IgnoreToken[]
      try {
        tokens = parseGlob(glob)
      } catch {
        continue
      }
      const test = ignoreTest(tokens)
      const regex = reference(tokens)
      for (let k = 0; k < 6; k++) {
        // Texts made from the glob (each wildcard some text) or at random, so many of them match.
        const text =
          k < 3
            ? glob.replace(/\*\*\/|\/\*\*\/?|\*|\?|\[[^\]]*\]|\{[^}]*\}|\\/g, () =>
                Array.from({ length: Math.floor(next() * 3) }, () => pick(TEXT_UNITS)).join(""),
              )
            : Array.from({ length: Math.floor(next() * 6) }, () => pick(TEXT_UNITS)).join("")
        const expected = regex.test(text)
        if (expected) matched++
        if (test(text) !== expected) differ.push(JSON.stringify({ glob, text, expected }))
      }
    }
    expect(differ.slice(0, 10)).toEqual([])
    expect(matched).toBeGreaterThan(3000)
  })

  it("decide a repository's hostile line on a long name in one pass", () => {
    // As a regular expression this froze every search of the repository (minutes on 200 characters);
    // a backtracking regression hangs the test.
    const file = new IgnoreFile("*a*a*a*a*a*a*a*a*b\n[a-z]*a*a*a*a*a*?c/**/x\n")
    const long = "a".repeat(250)
    expect(file.match(`${long}.txt`, `${long}.txt`, false)).toBe(NONE)
    expect(file.match(`${long}b`, `${long}b`, false)).toBe(IGNORE)
    expect(file.match(`d/${long}/x`, "x", false)).toBe(NONE)
    expect(file.match(`${long}c/d/x`, "x", false)).toBe(IGNORE)
  })

  it("read ? as one character, a surrogate pair included, and never as /", () => {
    expect(ignoreTest(parseGlob("?"))("😀")).toBe(true)
    expect(ignoreTest(parseGlob("??"))("😀")).toBe(false)
    expect(ignoreTest(parseGlob("?"))("/")).toBe(false)
    expect(ignoreTest(parseGlob("[😀-😂]x"))("😁x")).toBe(true)
    expect(ignoreTest(parseGlob("[!😀]"))("😁")).toBe(true)
    expect(ignoreTest(parseGlob("[!😀]"))("😀")).toBe(false)
  })
})
