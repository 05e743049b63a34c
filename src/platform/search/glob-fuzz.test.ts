// Random glob soups, as a fuzzer finds the globs that froze picomatch (`!(é1)+!,}aé ` never finished on a
// 200-character name): every one compiles or is refused with a SearchError, and every match stays within
// the automaton's bound, NFA size × (2 × path length + 1) states visited, whatever the glob. No timing.
import { describe, expect, it } from "vitest"
import { type SeededRandom, seededRandom } from "../../../test/fixtures/seeded-random.ts"
import { SearchError } from "./backend.ts"
import { globMatcher } from "./glob.ts"
import { compileGlob, type GlobProgram } from "./glob-match.ts"

const TOKENS = [
  "*",
  "**",
  "?",
  "[",
  "]",
  "!",
  "^",
  "{",
  "}",
  ",",
  "..",
  "/",
  "\\",
  "(",
  ")",
  "|",
  "+",
  "@",
  "a",
  "b",
  "z",
  "1",
  "9",
  ".",
  "-",
  "é",
  "😀",
  "[:alpha:]",
  " ",
  "\n",
]

/** The names each glob is matched against: short ones, and 255-character ones it nearly matches. */
function names(glob: string, random: SeededRandom): string[] {
  const filled = glob.replace(/[*?[\](){}|!+@\\^,/\n]/g, () => random.pick(["a", "é", "1", "-", ".", ""]))
  const long = (seed: string) => (seed === "" ? "a" : seed).repeat(255).slice(0, 255)
  return [
    "a",
    "é1",
    ".hidden",
    filled || "x",
    long("é1"),
    long(filled),
    long(TOKENS.filter((token) => token !== "/").join("")),
    Array.from({ length: 255 }, () => random.pick(["a", "b", "é", "1", ".", "-", "!", ",", " "])).join(""),
  ]
}

/** Matches `path` (and its directory and name apart), holding each match to the bound. */
function matchWithinBound(program: GlobProgram, path: string): void {
  const nfa = program.automaton.nfa
  const bound = (text: string) => nfa.size * (2 * text.length + 1)
  nfa.steps = 0
  const whole = program.matches(path)
  expect(nfa.steps, `${path.length} units`).toBeLessThanOrEqual(bound(path))
  const slash = path.lastIndexOf("/")
  if (slash < 0) return
  nfa.steps = 0
  expect(program.matchesIn(path.slice(0, slash), path.slice(slash + 1))).toBe(whole)
  expect(nfa.steps).toBeLessThanOrEqual(bound(path))
}

/** Compiles `glob`; undefined when it is refused, which must be a SearchError. */
function compileOrRefuse(glob: string): GlobProgram | undefined {
  try {
    return compileGlob(glob)
  } catch (error) {
    expect(error, JSON.stringify(glob)).toBeInstanceOf(SearchError)
    return undefined
  }
}

describe("random glob soups", () => {
  it("compile or are refused with a SearchError, and match 255-character names within the bound", () => {
    const random = seededRandom(0x9e3779b9)
    let compiled = 0
    let refused = 0
    let matched = 0
    for (let round = 0; round < 3_000; round++) {
      const glob = Array.from({ length: 1 + Math.floor(random.next() * 14) }, () => random.pick(TOKENS)).join(
        "",
      )
      const program = compileOrRefuse(glob)
      if (!program) {
        refused++
        continue
      }
      compiled++
      for (const name of names(glob, random)) {
        matchWithinBound(program, name)
        matchWithinBound(program, `src/${name}/${name}`)
        if (program.matches(name)) matched++
      }
      try {
        globMatcher([glob])?.("src", "a")
      } catch (error) {
        expect(error, JSON.stringify(glob)).toBeInstanceOf(SearchError)
      }
    }
    // Not vacuous: nearly all compile, and some names match.
    expect(compiled).toBeGreaterThan(2_900)
    expect(refused).toBeLessThan(100)
    expect(matched).toBeGreaterThan(500)
  })

  it("include the glob that froze picomatch, matched within the bound", () => {
    const program = compileGlob("!(é1)+!,}aé ")
    for (const name of ["é1".repeat(100), `${"é".repeat(200)}+!,}aé`, "x+!,}aé", "é1+!,}aé"]) {
      matchWithinBound(program, name)
      matchWithinBound(program, `dir/${name}`)
    }
    expect(program.matches("x+!,}aé")).toBe(true)
    expect(program.matches("é1+!,}aé")).toBe(false)
    expect(program.matches("é1".repeat(100))).toBe(false)
  })

  it("nest groups thousands deep without overflowing the stack", () => {
    for (const glob of [
      "@(".repeat(5_000) + "a" + ")".repeat(5_000),
      "!(".repeat(60) + "a" + ")".repeat(60),
    ]) {
      const program = compileOrRefuse(glob)
      if (program) matchWithinBound(program, "a".repeat(255))
    }
    expect(compileGlob("@(".repeat(5_000) + "a" + ")".repeat(5_000)).matches("a")).toBe(true)
    expect(compileGlob("+(".repeat(2_000) + "a" + ")".repeat(2_000)).matches("a".repeat(255))).toBe(true)
  })
})

describe("!(list)", () => {
  it("matches exactly the text without / that @(list) does not, on generated lists and texts", () => {
    const random = seededRandom(20_261_125)
    const atoms = ["a", "b", "é", "*", "?", "[ab]", "[^a]", "{a,b}", "{,a}", "@(a|b)", "+(a)", "*(b)", "?(é)"]
    const letters = ["a", "b", "é", "x"]
    let both = 0
    for (let round = 0; round < 400; round++) {
      const alternative = () =>
        Array.from({ length: 1 + Math.floor(random.next() * 3) }, () => random.pick(atoms)).join("")
      const list = Array.from({ length: 1 + Math.floor(random.next() * 3) }, alternative).join("|")
      const positive = compileGlob(`@(${list})`)
      const negative = compileGlob(`!(${list})`)
      const prefixed = compileGlob(`x!(${list})`)
      for (let text = 0; text < 12; text++) {
        const name = Array.from({ length: Math.floor(random.next() * 7) }, () => random.pick(letters)).join(
          "",
        )
        if (name === "") continue
        const inList = positive.matches(name)
        expect(negative.matches(name), `!(${list}) on ${name}`).toBe(!inList)
        expect(prefixed.matches(`x${name}`), `x!(${list}) on x${name}`).toBe(!inList)
        if (!inList) both++
      }
      expect(negative.matches("a/b")).toBe(false)
    }
    expect(both).toBeGreaterThan(500)
  })
})
