import { describe, expect, it } from "vitest"
import { IGNORE, IgnoreFile, NONE, WHITELIST } from "./ignore-file.ts"

function verdict(rules: string, path: string, isDir = false): "ignore" | "whitelist" | "none" {
  const file = new IgnoreFile(rules)
  const name = path.slice(path.lastIndexOf("/") + 1)
  const result = file.match(path, name, isDir)
  return result === IGNORE ? "ignore" : result === WHITELIST ? "whitelist" : "none"
}

describe("IgnoreFile (ripgrep's gitignore rules)", () => {
  it.each([
    // A name without a slash matches at any depth.
    ["foo", "foo", false, "ignore"],
    ["foo", "a/b/foo", false, "ignore"],
    ["foo", "foox", false, "none"],
    ["*.log", "debug.log", false, "ignore"],
    ["*.log", "a/debug.log", false, "ignore"],
    ["*.log", "a/debug.log.txt", false, "none"],
    ["*.tar.gz", "a/x.tar.gz", false, "ignore"],
    ["*.tar.gz", "a/x.gz", false, "none"],
    ["*~", "a/file~", false, "ignore"],
    ["cscope.*", "a/cscope.out", false, "ignore"],
    ["*.c.[012]*.*", "a/x.c.0foo.bar", false, "ignore"],
    ["*.asn1.[ch]", "x.asn1.c", false, "ignore"],
    ["*.asn1.[ch]", "x.asn1.d", false, "none"],
    // A leading slash anchors to the file's directory.
    ["/foo", "foo", false, "ignore"],
    ["/foo", "a/foo", false, "none"],
    // A slash inside anchors too.
    ["a/foo", "a/foo", false, "ignore"],
    ["a/foo", "b/a/foo", false, "none"],
    ["a/*.c", "a/x.c", false, "ignore"],
    ["a/*.c", "a/b/x.c", false, "none"],
    // A trailing slash matches directories only.
    ["build/", "build", true, "ignore"],
    ["build/", "build", false, "none"],
    ["build/", "a/build", true, "ignore"],
    // ** forms.
    ["**/foo", "a/b/foo", false, "ignore"],
    ["a/**/b", "a/b", false, "ignore"],
    ["a/**/b", "a/x/y/b", false, "ignore"],
    ["a/**", "a/x", false, "ignore"],
    ["a/**", "a/x/y", false, "ignore"],
    ["a/**", "a", true, "none"],
    ["**", "anything/at/all", false, "ignore"],
    ["a**b", "axxb", false, "ignore"],
    ["a**b", "ax/xb", false, "none"],
    // * and ? never cross a slash; they match a leading dot.
    ["a*b", "a/b", false, "none"],
    ["a?b", "a/b", false, "none"],
    ["*", ".hidden", false, "ignore"],
    [".*", ".env", false, "ignore"],
    // Classes, negated classes, alternates, escapes.
    ["[!a]*.txt", "b.txt", false, "ignore"],
    ["[!a]*.txt", "a.txt", false, "none"],
    ["[^a]*.txt", "a.txt", false, "none"],
    ["*.{js,ts}", "x.ts", false, "ignore"],
    ["*.{js,ts}", "x.rs", false, "none"],
    ["\\#notes", "#notes", false, "ignore"],
    ["\\!important", "!important", false, "ignore"],
    ["foo\\ ", "foo ", false, "ignore"],
    ["foo   ", "foo", false, "ignore"],
    ["\\*", "*", false, "ignore"],
    ["\\*", "x", false, "none"],
    // Comments and blank lines.
    ["# foo", "# foo", false, "none"],
    ["", "x", false, "none"],
    // Unicode names.
    ["日本*.txt", "a/日本語.txt", false, "ignore"],
    ["é?", "éa", false, "ignore"],
  ])("%j on %s (dir: %s) → %s", (rules, path, isDir, expected) => {
    expect(verdict(rules, path, isDir)).toBe(expected)
  })

  it("lets the last matching rule win, whatever kind of rule it is", () => {
    const rules = "*.log\n!keep.log\n"
    expect(verdict(rules, "a/keep.log")).toBe("whitelist")
    expect(verdict(rules, "a/other.log")).toBe("ignore")
    expect(verdict("!keep.log\n*.log\n", "keep.log")).toBe("ignore")
    expect(verdict("/a/*.c\n!x.c\n", "a/x.c")).toBe("whitelist")
    expect(verdict("!x.c\n/a/*.c\n", "a/x.c")).toBe("ignore")
    expect(verdict("x\n!/x\n", "x")).toBe("whitelist")
    expect(verdict("foo/\n!foo\n", "foo", true)).toBe("whitelist")
    expect(verdict("!foo\nfoo/\n", "foo", true)).toBe("ignore")
    expect(verdict("!foo\nfoo/\n", "foo", false)).toBe("whitelist")
  })

  it("reads CRLF files and a BOM", () => {
    expect(verdict("\uFEFFa.txt\r\nb.txt\r\n", "a.txt")).toBe("ignore")
    expect(verdict("\uFEFFa.txt\r\nb.txt\r\n", "b.txt")).toBe("ignore")
  })

  it("skips lines that are not valid globs", () => {
    const file = new IgnoreFile("[unclosed\n*.o\n")
    expect(file.match("x.o", "x.o", false)).toBe(IGNORE)
    expect(file.match("[unclosed", "[unclosed", false)).toBe(NONE)
  })
})
