import { describe, expect, it } from "vitest"
import { stripGutters } from "./gutter.ts"

describe("stripGutters", () => {
  it.each([
    ["colon (read output)", "12: foo()\n13:   bar()", "foo()\n  bar()"],
    ["colon, blank line without its space", "12: foo()\n13:\n14: bar()", "foo()\n\nbar()"],
    ["colon, blank line with its space", "12: foo()\n13: \n14: bar()", "foo()\n\nbar()"],
    ["pipe", "   9 | foo()\n  10 |   bar()", "foo()\n  bar()"],
    ["arrow", "     9→foo()\n    10→\tbar()", "foo()\n\tbar()"],
    ["tab (cat -n)", "     9\tfoo()\n    10\t\tbar()", "foo()\n\tbar()"],
    ["a single line", "42: return x", "return x"],
    ["a trailing line break", "7: a\n8: b\n", "a\nb\n"],
    ["a blank line without any gutter takes its number", "7: a\n\n9: b", "a\n\nb"],
    ["one line that lost its number", "7: a\nb\n9: c", "a\nb\nc"],
    ["the first line without its number", "a\n8: b\n9: c", "a\nb\nc"],
    ["the last line without its number", "7: a\n8: b\nc", "a\nb\nc"],
  ])("%s", (_, oldString, expected) => {
    expect(stripGutters(oldString, "")?.oldString).toBe(expected)
  })

  it("strips newString's gutters too, or leaves a newString without any", () => {
    expect(stripGutters("1: a\n2: b", "1: a\n2: c\n3: d")).toEqual({
      oldString: "a\nb",
      newString: "a\nc\nd",
      form: "colon",
      firstLine: 1,
    })
    expect(stripGutters("1: a\n2: b", "a\nc")?.newString).toBe("a\nc")
    expect(stripGutters("1: a\n2: b", "")?.newString).toBe("")
  })

  it("strips newString's numbered lines and keeps the ones the model added without a number", () => {
    expect(stripGutters("1: a\n2: b", "1: a\nadded\n2: b")?.newString).toBe("a\nadded\nb")
  })

  it.each([
    ["no gutter", "foo\nbar", ""],
    ["only some lines numbered", "1: a\nb", ""],
    ["two lines without their numbers", "1: a\nb\nc\n4: d\n5: e", ""],
    ["numbers that skip lines (two places spliced)", "1: a\n2: b\n9: c", ""],
    ["numbers not consecutive (YAML keys)", "1: one\n3: three", ""],
    ["forms mixed", "1: a\n2 | b", ""],
    ["a blank oldString", "\n  \n", ""],
    ["newString numbered backwards", "1: a\n2: b", "2: b\n1: a"],
    ["number without the separator's space", "12:foo", ""],
  ])("leaves both alone: %s", (_, oldString, newString) => {
    expect(stripGutters(oldString, newString)).toBeUndefined()
  })
})
