import { describe, expect, it } from "vitest"
import { SearchError } from "./backend.ts"
import { globMatcher, globTooLong, MAX_GLOB_LENGTH, nameGlob, normalizeGlob } from "./glob.ts"

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
  it("is refused with a SearchError that says so, on every path a glob takes (literal, suffix, automaton, extglob)", () => {
    for (const glob of ["x", "*.x", "src/**/x", "*a*b", "@(a|b)", "!(a)"]) {
      const long = glob.padEnd(MAX_GLOB_LENGTH + 1, "x")
      expect(() => globMatcher([long])).toThrow(SearchError)
      expect(() => globMatcher([long])).toThrow(
        `A glob of 65,537 characters is longer than the 65,536 a glob may have (a path holds at most 4,096 bytes), so nothing was searched. Use a shorter glob.`,
      )
      expect(globMatcher([glob.padEnd(MAX_GLOB_LENGTH, "x")])).toBeTypeOf("function")
    }
  })
})

describe("wildcards", () => {
  it("any number in one segment are matched (in bounded time), the glob a user writes among them", () => {
    const name = `${"x".repeat(200)}test-spec-fixture.json`
    expect(globMatcher(["*test*spec*fixture*json"])!("src", name)).toBe(true)
    expect(globMatcher(["*test*spec*fixture*json"])!("src", name.replace("spec", "spek"))).toBe(false)
    expect(globMatcher(["*a*a*a*b"])!("", `${"a".repeat(200)}b`)).toBe(true)
    expect(globMatcher(["*a*a*a*b"])!("", `${"a".repeat(200)}c`)).toBe(false)
    expect(globMatcher(["src/*a*a*a*a*a*a*a*a*b/x"])!(`src/${"a".repeat(250)}b`, "x")).toBe(true)
    expect(globMatcher(["src/*a*a*a*a*a*a*a*a*b/x"])!(`src/${"a".repeat(250)}`, "x")).toBe(false)
    const within = globMatcher(["**/*foo*bar*", "**/**/**/a/**/b"])!
    expect(within("src/deep", "xfooybarz")).toBe(true)
    expect(within("x/a/y/z", "b")).toBe(true)
  })

  it("any number in a glob with groups, extglobs or |, matched by the same automaton", () => {
    const name = `${"ab".repeat(100)}c`
    expect(globMatcher(["*(a|b)*(a)*(b)*c"])!("", name)).toBe(true)
    expect(globMatcher(["*(a|b)*(a)*(b)*c"])!("", `${name}d`)).toBe(false)
    expect(globMatcher(["+(a)+(b)+(c)+(d)"])!("", "aabbcd")).toBe(true)
    expect(globMatcher(["src/*a*a*a*b|c/x"])!("src/aaab|c", "x")).toBe(true)
    expect(globMatcher(["*(a|b)*.ts"])!("src", "ab.ts")).toBe(true)
    expect(globMatcher(["**/@(x|y)*/*.c"])!("lib/yes", "a.c")).toBe(true)
    expect(globMatcher(["!(é1)+!,}aé"])!("", "é1".repeat(100))).toBe(false)
    expect(globMatcher(["**/!(*.test).ts"])!("src", "a.ts")).toBe(true)
    expect(globMatcher(["**/!(*.test).ts"])!("src", "a.test.ts")).toBe(false)
  })
})

describe("a !(…) group too complex to match", () => {
  it("is refused with a SearchError saying what to write instead, alone or with the glob's other groups", () => {
    // After `*a`, the DFA must remember where each `a` of the last nine units was: 512 states.
    for (const glob of ["!(*a????????)", "x/*.!(*a????????)"]) {
      expect(() => globMatcher([glob])).toThrow(SearchError)
      expect(() => globMatcher([glob])).toThrow(
        'The glob\'s "!(…)" group needs more than 256 states to be matched (its alternatives have many wildcards, "?" or classes after a "*"), so nothing was searched. Use fewer wildcards inside "!(…)", or a glob without "!(…)" that matches more, and leave out what you do not want from the results.',
      )
      expect(globTooLong(glob)).toMatch(/needs more than 256 states/)
    }
    // 128 states each: 33 of them pass the 4,096 of one glob.
    const many = "!(*a??????)".repeat(33)
    expect(() => globMatcher([many])).toThrow(
      'The glob\'s "!(…)" groups need more than 4,096 states together to be matched, so nothing was searched. Use fewer "!(…)" groups, or fewer wildcards inside them.',
    )
    expect(globMatcher(["!(*a??????)".repeat(31)])).toBeTypeOf("function")
    expect(globMatcher(["!(*a???????)"])!("", "xaxxxxxxx")).toBe(false)
  })
})

describe("brace ranges", () => {
  it("match the numbers they stand for, and are refused past 10,000 values with a way out", () => {
    expect(globMatcher(["log-{1..12}.txt"])!("", "log-11.txt")).toBe(true)
    expect(globMatcher(["log-{1..12}.txt"])!("", "log-13.txt")).toBe(false)
    expect(globMatcher(["log-{1..10000}.txt"])!("", "log-9999.txt")).toBe(true)
    for (const glob of ["log-{1..10001}.txt", "{1..5000}-{1..5001}"]) {
      expect(() => globMatcher([glob])).toThrow(SearchError)
      expect(() => globMatcher([glob])).toThrow(
        /brace ranges \(such as \{1\.\.100\}\) stand for 10,00[12] values; at most 10,000 are matched, so nothing was searched\. Use a wildcard or a character class instead/,
      )
    }
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
