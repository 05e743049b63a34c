import { describe, expect, it } from "vitest"
import { SearchError } from "./backend.ts"
import { globMatcher, MAX_GLOB_LENGTH, nameGlob, normalizeGlob } from "./glob.ts"

const matches = (pattern: string, path: string) => {
  const slash = path.lastIndexOf("/")
  return globMatcher([pattern])!(slash < 0 ? "" : path.slice(0, slash), path.slice(slash + 1))
}

describe("globMatcher", () => {
  it.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "src/deep/a.ts", true],
    ["*.ts", "a.tsx", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/x/a.ts", false],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**", "src/x/y/a.ts", true],
    ["./src/*.ts", "src/a.ts", true],
    ["*.{ts,tsx}", "x/a.tsx", true],
    ["[!a]*.ts", "b.ts", true],
    ["[!a]*.ts", "a.ts", false],
    ["*", ".env", true],
    ["**/.env", "x/.env", true],
    ["Kconfig", "drivers/Kconfig", true],
    ["Kconfig", "drivers/Kconfig.debug", false],
    ["**/Kconfig*", "drivers/Kconfig.debug", true],
    ["日本*.txt", "a/日本語.txt", true],
  ])("%s on %s → %s", (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected)
  })

  it("matches any of several globs, and everything without one", () => {
    const test = globMatcher(["*.md", "src/**"])!
    expect(test("", "README.md")).toBe(true)
    expect(test("src/a", "x.ts")).toBe(true)
    expect(test("lib", "x.ts")).toBe(false)
    expect(globMatcher([])).toBeUndefined()
    expect(globMatcher(["  "])).toBeUndefined()
  })
})

describe("a glob longer than any path", () => {
  it("is refused with a SearchError that says so, on every path a glob takes (literal, suffix, picomatch)", () => {
    for (const glob of ["x", "*.x", "src/**/x", "*a*b"]) {
      const long = glob.padEnd(MAX_GLOB_LENGTH + 1, "x")
      expect(() => globMatcher([long])).toThrow(SearchError)
      expect(() => globMatcher([long])).toThrow(
        `A glob of 65,537 characters is longer than the 65,536 a glob may have (a path holds at most 4,096 bytes), so nothing was searched. Use a shorter glob.`,
      )
      expect(globMatcher([glob.padEnd(MAX_GLOB_LENGTH, "x")])).toBeTypeOf("function")
    }
  })
})

describe("a glob with too many wildcards in one segment", () => {
  it("is refused before it is compiled (its match could backtrack for minutes); up to three are matched", () => {
    for (const glob of ["*a*a*a*b", "src/*a*a*a*a*a*a*a*a*b/x", "*(a|b)*(a)*(b)*", "+(a)+(b)+(c)+(d)"]) {
      expect(() => globMatcher([glob])).toThrow(SearchError)
      expect(() => globMatcher([glob])).toThrow(/wildcards in one path segment; at most 3 are matched/)
    }
    // Within the bound, and globstars (a segment of their own) do not count.
    const within = globMatcher(["**/*foo*bar*", "**/**/**/a/**/b"])!
    expect(within("src/deep", "xfooybarz")).toBe(true)
    expect(globMatcher(["*a*a*b"])!("", `${"a".repeat(200)}b`)).toBe(true)
  })
})

describe("nameGlob and normalizeGlob", () => {
  it("finds the globs that only look at file names", () => {
    expect(nameGlob("*.c")).toBe("*.c")
    expect(nameGlob("**/Kconfig")).toBe("Kconfig")
    expect(nameGlob("src/*.c")).toBeUndefined()
    expect(nameGlob("**")).toBeUndefined()
    expect(normalizeGlob("./a/[!x].c")).toBe("a/[^x].c")
  })
})
