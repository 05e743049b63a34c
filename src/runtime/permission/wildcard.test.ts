import { describe, expect, it } from "vitest"
import { seededRandom } from "../../../test/fixtures/seeded-random.ts"
import { compile, literalPrefix, literalSuffix, lowerAscii, match } from "./wildcard.ts"

const unix = { ignoreCase: false }

describe("match", () => {
  const cases: [input: string, pattern: string, expected: boolean][] = [
    // `*` and `?`
    ["anything at all", "*", true],
    ["", "*", true],
    ["file1.txt", "file?.txt", true],
    ["file12.txt", "file?.txt", false],
    ["file.txt", "file?.txt", false],
    // regex metacharacters are literal
    ["file+.txt", "file+.txt", true],
    ["filee.txt", "file+.txt", false],
    ["a.b", "a.b", true],
    ["axb", "a.b", false],
    ["(x)|[y]{2}^$", "(x)|[y]{2}^$", true],
    ["x", "(x)|[y]{2}^$", false],
    ["a\\d", "a\\d", true],
    ["a1", "a\\d", false],
    // anchored: the whole input must match
    ["git status", "git", false],
    ["git status", "status", false],
    ["xgit", "git*", false],
    // trailing ` *` also matches the bare command
    ["ls", "ls *", true],
    ["ls -la", "ls *", true],
    ["ls foo bar", "ls *", true],
    ["lstmeval", "ls *", false],
    ["lstmeval", "ls*", true],
    ["ls", "ls*", true],
    ["git commit", "git commit *", true],
    ["git commit -m 'x'", "git commit *", true],
    ["git commit -m 'x'", "git commit", false],
    ["kill -9 123", "kill *", true],
    // `*` crosses `/` and newlines
    ["src/a/b.ts", "src/*", true],
    ["src", "src/*", false],
    [".env", "*.env", true],
    ["config/.env", "*.env", true],
    [".env.local", "*.env.*", true],
    ["echo a\necho b", "echo *", true],
    ["echo a\nrm -rf /", "echo *", true],
    ["line1\nline2", "line1*line2", true],
    ["a\nb", "a?b", true],
  ]
  it.each(cases)("%j against %j → %s", (input, pattern, expected) => {
    expect(match(input, pattern, unix)).toBe(expected)
  })

  it("middle `*` with a trailing ` *`", () => {
    expect(match("git push origin main", "git * main *", unix)).toBe(true)
    expect(match("git push main", "git * main *", unix)).toBe(true)
    expect(match("git main", "git * main *", unix)).toBe(false)
  })

  it("never folds backslashes for commands", () => {
    expect(match("echo a\\b", "echo a/b", unix)).toBe(false)
    expect(match("echo a/b", "echo a\\b", unix)).toBe(false)
    expect(match("printf '\\n'", "printf *", unix)).toBe(true)
  })

  it("folds backslashes in both sides for paths", () => {
    const paths = { paths: true, ignoreCase: false }
    expect(match("C:\\Users\\me\\x.ts", "C:/Users/*", paths)).toBe(true)
    expect(match("C:/Users/me/x.ts", "C:\\Users\\*", paths)).toBe(true)
    expect(match("src\\a.ts", "src/a.ts", paths)).toBe(true)
    expect(match("src\\a.ts", "src/b.ts", paths)).toBe(false)
  })

  it("is case-sensitive unless told otherwise (the default on Windows)", () => {
    expect(match("LS -la", "ls *", unix)).toBe(false)
    expect(match("LS -la", "ls *", { ignoreCase: true })).toBe(true)
    expect(match("SRC/A.TS", "src/a.ts", { ignoreCase: true })).toBe(true)
    expect(match("src/a.ts", "SRC/*", { ignoreCase: true, paths: true })).toBe(true)
    expect(match("ls", "ls", {})).toBe(true)
    expect(match("LS", "ls", {})).toBe(process.platform === "win32")
  })

  it("caches compiled matchers per pattern and options", () => {
    expect(compile("a*", unix)).toBe(compile("a*", unix))
    expect(compile("a*", unix)).not.toBe(compile("a*", { ignoreCase: true }))
    expect(compile("a*", unix)).not.toBe(compile("a*", { paths: true, ignoreCase: false }))
  })
})

describe("compiled matchers agree with the plain regex translation", () => {
  const reference = (pattern: string, input: string, ignoreCase: boolean, paths: boolean) => {
    const fold = (text: string) => (paths ? text.replaceAll("\\", "/") : text)
    let body = fold(pattern)
    const bare = body.endsWith(" *")
    if (bare) body = body.slice(0, -2)
    const source = [...body]
      .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("")
    return new RegExp(`^${source}${bare ? "( .*)?" : ""}$`, ignoreCase ? "si" : "s").test(fold(input))
  }

  it.each([
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ])("ignoreCase %s, paths %s", (ignoreCase, paths) => {
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    const alphabet = ["a", "A", "b", " ", "*", "?", "/", "\\", "\n", "."]
    const text = (max: number, wild: boolean) =>
      Array.from({ length: Math.floor(random() * max) }, () => {
        const c = alphabet[Math.floor(random() * alphabet.length)]!
        return wild || (c !== "*" && c !== "?") ? c : "a"
      }).join("")
    for (let n = 0; n < 4000; n++) {
      const pattern = text(7, true)
      const input = text(9, false)
      expect(
        match(input, pattern, { ignoreCase, paths }),
        `${JSON.stringify(pattern)} ${JSON.stringify(input)}`,
      ).toBe(reference(pattern, input, ignoreCase, paths))
    }
  })
})

describe("literalPrefix", () => {
  it.each([
    ["git push *", {}, "git push"],
    ["ls *", {}, "ls"],
    ["git * main", {}, "git "],
    ["*.env", {}, ""],
    ["file?.txt", {}, "file"],
    ["src/a.ts", {}, "src/a.ts"],
    ["src\\*", { paths: true }, "src/"],
    ["Src/Ä*", { ignoreCase: true }, "src/"],
  ] as const)("%j %j → %j", (pattern, options, expected) => {
    expect(literalPrefix(pattern, { ignoreCase: false, ...options })).toBe(expected)
  })

  it.each([
    ["*.env", {}, ".env"],
    ["ls *", {}, ""],
    ["git *", {}, ""],
    ["a?b", {}, "b"],
    ["src/a.ts", {}, "src/a.ts"],
    ["*\\X.TS", { paths: true, ignoreCase: true }, "/x.ts"],
    ["*é.ENV", { ignoreCase: true }, ".env"],
  ] as const)("literalSuffix %j %j → %j", (pattern, options, expected) => {
    expect(literalSuffix(pattern, { ignoreCase: false, ...options })).toBe(expected)
  })

  it("lower-cases ASCII only", () => {
    expect(lowerAscii("ABC-xyz-ÄÖ")).toBe("abc-xyz-ÄÖ")
  })
})

/** The regular expression the matcher once compiled patterns to: the reference for its answers. */
function reference(input: string, pattern: string, paths: boolean, ignoreCase: boolean): boolean {
  const fold = (text: string) => (paths ? text.replaceAll("\\", "/") : text)
  const folded = fold(pattern)
  const bare = folded.endsWith(" *")
  let source = ""
  for (const char of bare ? folded.slice(0, -2) : folded) {
    if (char === "*") source += ".*"
    else if (char === "?") source += "."
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  }
  if (bare) source += "( .*)?"
  return new RegExp(`^${source}$`, ignoreCase ? "si" : "s").test(fold(input))
}

describe("matching without backtracking", () => {
  it("answers as an anchored dotall regular expression does, case folding included", () => {
    const units = ["a", "A", "b", "*", "?", " ", "\\", "/", "é", "É", "ß", "ı", "I", "\n", "😀"]
    const { next } = seededRandom(0x2545f491)
    const text = (max: number, from: string[]) =>
      Array.from(
        { length: Math.floor(next() * (max + 1)) },
        () => from[Math.floor(next() * from.length)],
      ).join("")
    const inputs = units.filter((unit) => unit !== "*" && unit !== "?")
    // Inputs made from the pattern (each `*` some text, each `?` one unit), then often changed in one
    // place, so that about half of them match.
    const instance = (pattern: string) => {
      let out = ""
      for (const unit of pattern) {
        if (unit === "*") out += text(3, inputs)
        else if (unit === "?") out += inputs[Math.floor(next() * inputs.length)]
        else out += next() < 0.3 ? (next() < 0.5 ? unit.toUpperCase() : unit.toLowerCase()) : unit
      }
      if (next() < 0.4) {
        const at = Math.floor(next() * (out.length + 1))
        out = out.slice(0, at) + text(1, inputs) + out.slice(at + 1)
      }
      return out
    }
    const differ: string[] = []
    let matched = 0
    for (let round = 0; round < 20_000; round++) {
      const pattern = text(7, units)
      const input = instance(pattern)
      const paths = next() < 0.5
      const ignoreCase = next() < 0.5
      const expected = reference(input, pattern, paths, ignoreCase)
      if (expected) matched++
      if (match(input, pattern, { paths, ignoreCase }) !== expected)
        differ.push(JSON.stringify({ input, pattern, paths, ignoreCase, expected }))
    }
    expect(matched).toBeGreaterThan(5_000)
    expect(differ.slice(0, 10)).toEqual([])
  })

  it("decides a rule with several wildcards against a long command in one pass", () => {
    // As a regular expression this took 22 s at 500 characters; a backtracking regression hangs the test.
    const input = "a".repeat(100_000)
    expect(match(input, "*a*?*a*b")).toBe(false)
    expect(match(`${input}b`, "*a*?*a*b")).toBe(true)
    expect(match(input, "*a*a*a*?b", { ignoreCase: true })).toBe(false)
    expect(match(input.toUpperCase(), "*a*a*a*?a", { ignoreCase: true })).toBe(true)
  })
})
