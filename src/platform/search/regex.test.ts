import { isAscii } from "node:buffer"
import { describe, expect, it } from "vitest"
import { SearchPatternError } from "./backend.ts"
import { compilePattern, type PatternOptions } from "./regex.ts"

/** Whether `line` matches, checking that the ASCII variant agrees on ASCII lines. */
function matches(pattern: string, line: string, options: PatternOptions = {}): boolean {
  const compiled = compilePattern(pattern, options)
  const full = new RegExp(compiled.source, compiled.flags).test(line)
  if (isAscii(Buffer.from(line))) {
    expect(new RegExp(compiled.asciiSource, compiled.flags).test(line), `ascii variant of ${pattern}`).toBe(
      full,
    )
  }
  return full
}

function problem(pattern: string): string {
  try {
    compilePattern(pattern)
  } catch (error) {
    expect(error).toBeInstanceOf(SearchPatternError)
    return (error as SearchPatternError).problem
  }
  throw new Error(`${pattern} compiled`)
}

describe("translation: same lines as ripgrep", () => {
  it.each([
    ["foo", "a foo b", true],
    ["foo", "FOO", false],
    ["(?i)foo", "FOO", true],
    ["(?i)Foo", "fOO", true],
    ["a(?i)b", "aB", true],
    ["a(?i)b", "AB", false],
    ["(?i:a)b", "Ab", true],
    ["(?i:a)b", "AB", false],
    ["(?i)a(?-i)b", "Ab", true],
    ["(?i)a(?-i)b", "AB", false],
    ["\\w+_RESUME", "PM_RESUME", true],
    ["\\w+_RESUME", "_RESUME", false],
    ["^\\w+$", "naïve", true],
    ["^\\w+$", "日本語", true],
    ["^\\w+$", "a-b", false],
    ["\\bfoo\\b", "a foo b", true],
    ["\\bfoo\\b", "afoo", false],
    ["\\bfoo\\b", "éfoo", false],
    ["\\Bfoo", "éfoo", true],
    ["^\\d+$", "١٢٣", true],
    ["^\\s*$", "\u00a0 \t", true],
    ["^.$", "é", true],
    ["^.$", "😀", true],
    ["^...$", "a\rb", true],
    ["[[:alpha:]]+[[:digit:]]", "abc1", true],
    ["^[[:alpha:]]+$", "é", false],
    ["^[[:^alpha:]]+$", "123", true],
    ["[[:punct:]]", "a.b", true],
    ["[[:punct:]]", "ab", false],
    ["^[[:space:]]+$", " \t", true],
    ["\\x{e9}", "café", true],
    ["\\x41", "A", true],
    ["\\u{1F600}", "😀", true],
    ["\\U0001F600", "😀", true],
    ["\\pL+", "é", true],
    ["^\\p{Greek}+$", "αβγ", true],
    ["^\\p{greek}+$", "abc", false],
    ["^\\p{Lu}$", "A", true],
    ["^\\PL$", "1", true],
    ["^\\p{^L}$", "1", true],
    ["^\\p{sc=Latin}$", "a", true],
    ["^\\p{White_Space}$", " ", true],
    ["[a-z&&[^aeiou]]", "b", true],
    ["^[a-z&&[^aeiou]]$", "a", false],
    ["^[a-z--[aeiou]]$", "e", false],
    ["^[a-z--[aeiou]]$", "x", true],
    ["^[a-c~~b-d]$", "a", true],
    ["^[a-c~~b-d]$", "b", false],
    ["^[^a]$", "b", true],
    ["[]a]", "]", true],
    ["[^]a]", "]", false],
    ["[a-]", "-", true],
    ["a{2}", "aa", true],
    ["^a{2}$", "a", false],
    ["^a{2,}$", "aaaa", true],
    ["^a{1,2}$", "aaa", false],
    ["a**", "x", true],
    ["^*a", "a", true],
    ["x{2}{3}", "xxxxxx", true],
    ["colou?r", "color", true],
    ["foo|bar", "a bar", true],
    ["(foo|bar)baz", "barbaz", true],
    ["(?P<name>a)b", "ab", true],
    ["(?<name>a)b", "ab", true],
    ["(?x) a b # comment", "ab", true],
    ["(?x) a\\ b", "a b", true],
    ["a\\.b", "a.b", true],
    ["a\\.b", "axb", false],
    ["\\$\\^\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\\\", "$^*+?()[]{}|\\", true],
    ["\\#\\&\\-\\~", "#&-~", true],
    ["a/b", "a/b", true],
    ["}", "}", true],
    ["]", "]", true],
    ["", "anything", true],
    ["^$", "", true],
    ["^", "x", true],
    ["$", "x", true],
    ["\\Ax", "xy", true],
    ["y\\z", "xy", true],
    ["(?s).", "a", true],
    ["(?m)^a$", "a", true],
    ["(?U)a+", "aaa", true],
    ["(?-u)\\w", "é", false],
    ["(?-u:\\w)", "a", true],
  ])("%s on %j → %s", (pattern, line, expected) => {
    expect(matches(pattern, line)).toBe(expected)
  })

  it("never matches across a line break when run over many lines", () => {
    for (const pattern of [
      "a[^x]b",
      "a\\sb",
      "a.b",
      "a\\Wb",
      "a\\Db",
      "a[\\s\\S]b",
      "a[[:space:]]b",
      "a\\PLb",
    ]) {
      const compiled = compilePattern(pattern)
      expect(new RegExp(compiled.source, compiled.flags).test("a\nb"), pattern).toBe(false)
      expect(new RegExp(compiled.asciiSource, compiled.flags).test("a\nb"), pattern).toBe(false)
    }
  })

  it("anchors ^ and $ at line boundaries only (not at \\r)", () => {
    const start = compilePattern("^b")
    expect(new RegExp(start.source, `g${start.flags}`).exec("a\nb")?.index).toBe(2)
    expect(new RegExp(start.source, start.flags).test("a\rb")).toBe(false)
    const end = compilePattern("a$")
    expect(new RegExp(end.source, end.flags).test("a\r")).toBe(false)
    expect(new RegExp(end.source, end.flags).test("a\nb")).toBe(true)
  })

  it("folds case as ripgrep does (Unicode simple case folding)", () => {
    expect(matches("mask", "maſk", { ignoreCase: true })).toBe(true)
    expect(matches("kelvin", "\u212Aelvin", { ignoreCase: true })).toBe(true)
    expect(matches("ÉTÉ", "été", { ignoreCase: true })).toBe(true)
    expect(matches("σ", "Σ", { ignoreCase: true })).toBe(true)
  })

  it("treats fixed strings literally", () => {
    expect(matches("a.b(", "a.b(", { fixedStrings: true })).toBe(true)
    expect(matches("a.b(", "axb(", { fixedStrings: true })).toBe(false)
    expect(matches("A.B", "a.b", { fixedStrings: true, ignoreCase: true })).toBe(true)
    expect(matches("[x]", "[X]", { fixedStrings: true, ignoreCase: true })).toBe(true)
  })
})

describe("errors name the problem", () => {
  it.each([
    ["foo(", "unclosed group"],
    ["foo)", "unopened group"],
    ["[abc", "unclosed character class"],
    ["a{2", "unclosed counted repetition"],
    ["a{", "unclosed counted repetition"],
    ["*a", "repetition operator missing expression"],
    ["{", "repetition operator missing expression"],
    ["a|*", "repetition operator missing expression"],
    ["a{2,1}", "invalid repetition count range, the start must be <= the end"],
    ["a{,3}", "repetition quantifier expects a valid decimal"],
    ["\\y", "unrecognized escape sequence"],
    ["\\<", "unrecognized escape sequence"],
    ["(?<=a)b", "look-around, including look-ahead and look-behind, is not supported"],
    ["(?=a)", "look-around, including look-ahead and look-behind, is not supported"],
    ["(?!a)", "look-around, including look-ahead and look-behind, is not supported"],
    ["(?<!a)", "look-around, including look-ahead and look-behind, is not supported"],
    ["(a)\\1", "backreferences are not supported"],
    ["\\0", "backreferences are not supported"],
    ["[z-a]", "invalid character class range, the start must be <= the end"],
    ["(?P<n>a)(?P<n>b)", "duplicate capture group name"],
    ["(?z)", "unrecognized flag"],
    ["\\x{110000}", "hexadecimal literal is not a Unicode scalar value"],
    ["\\xZZ", "invalid hexadecimal digit"],
    ["a\\nb", 'the literal "\\n" is not allowed: grep matches one line at a time'],
  ])("%s: %s", (pattern, expected) => {
    expect(problem(pattern)).toBe(expected)
  })

  it("names an unknown Unicode class", () => {
    expect(problem("\\p{Foo}")).toBe("Unicode property not found: \\p{Foo}")
  })

  it("puts the pattern and the problem in the message", () => {
    expect(() => compilePattern("foo(")).toThrow('Invalid regex "foo(": unclosed group.')
  })
})

describe("literals every match contains", () => {
  const literals = (pattern: string, options: PatternOptions = {}) => {
    const compiled = compilePattern(pattern, options)
    return {
      literals: compiled.literals?.map((lit) => (lit.fold ? `~${lit.text}` : lit.text)).sort() ?? null,
      literalIsMatch: compiled.literalIsMatch,
    }
  }

  it.each([
    ["PM_RESUME", {}, ["PM_RESUME"], true],
    ["\\w+_RESUME", {}, ["_RESUME"], false],
    ["pm_resume", { ignoreCase: true }, ["~pm_re"], false],
    ["PM_RE", { ignoreCase: true }, ["~pm_re"], true],
    ["foo|bar", {}, ["bar", "foo"], true],
    ["(foo|bar)baz", {}, ["barbaz", "foobaz"], true],
    ["colou?r", {}, ["color", "colour"], true],
    ["^foo", {}, ["foo"], false],
    ["foo\\b", {}, ["foo"], false],
    ["a.b", {}, ["a"], false],
    ["(?s).", {}, null, false],
    ["[ab]cd", {}, ["acd", "bcd"], true],
    ["x+yz", {}, ["yz"], false],
    ["(?i)Hello", {}, ["~hello"], true],
    ["(?i)Kiss", {}, ["~i"], false],
    ["\\d+", {}, null, false],
    ["", {}, null, false],
    ["a.b(", { fixedStrings: true }, ["a.b("], true],
    ["café", {}, ["café"], true],
    ["café", { ignoreCase: true }, ["~caf"], false],
    ["foo|\\w+", {}, null, false],
  ])("%s %j → %j", (pattern, options, expected, exact) => {
    expect(literals(pattern, options)).toEqual({ literals: expected, literalIsMatch: exact })
  })
})
