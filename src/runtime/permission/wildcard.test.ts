import { describe, expect, it } from "vitest"
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
