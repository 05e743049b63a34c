import { describe, expect, it } from "vitest"
import { ESCAPES, escapeSpots, restoreSpots } from "./spelling.ts"
import { typographySpots } from "./typography.ts"

describe("restoreSpots", () => {
  const typography = (oldLine: string, fileLine: string, newLine: string) =>
    restoreSpots(oldLine, newLine, typographySpots(oldLine, fileLine))

  it.each<[string, string, string, string, string]>([
    [
      "quotes around a changed word",
      'He said "hi".',
      "He said “hi”.",
      'He said "hello".',
      "He said “hello”.",
    ],
    [
      "every unchanged spot",
      "| 1 TB | 2 GB |",
      "| 1\u00a0TB | 2\u00a0GB |",
      "| 2 TB | 5 GB |",
      "| 2\u00a0TB | 5\u00a0GB |",
    ],
    [
      "an ellipsis kept at the end of a longer line",
      "emoji...",
      "emoji…",
      "emoji or path...",
      "emoji or path…",
    ],
    ["a dash the model kept", "a--b", "a—b", "a -- c", "a — c"],
    ["text the model rewrote stays as written", '"old"', "“old”", "'new'", "'new'"],
    ["a line with no spots is as written", "plain", "plain", "plainer", "plainer"],
    [
      "a line rewritten past 400 character edits is as written",
      `"${"a".repeat(300)}"`,
      `“${"a".repeat(300)}”`,
      `"${"b".repeat(300)}"`,
      `"${"b".repeat(300)}"`,
    ],
  ])("%s", (_, oldLine, fileLine, newLine, expected) => {
    expect(typography(oldLine, fileLine, newLine)).toBe(expected)
  })
})

describe("escapes", () => {
  it("finds the characters the file escapes", () => {
    expect(escapeSpots('say "hi"', 'say \\"hi\\"')).toEqual([
      { oldFrom: 4, oldTo: 5, file: '\\"' },
      { oldFrom: 7, oldTo: 8, file: '\\"' },
    ])
  })

  it("restores them in a changed line", () => {
    const oldLine = '"hint": "Click "Save" now"'
    const fileLine = '"hint": "Click \\"Save\\" now"'
    const newLine = '"hint": "Click "Save" to keep it"'
    expect(ESCAPES.restore(oldLine, fileLine, newLine)).toBe('"hint": "Click \\"Save\\" to keep it"')
  })

  it("finds none when the file's line, unescaped, is not oldString's", () => {
    expect(escapeSpots('say "bye"', 'say \\"hi\\"')).toEqual([])
  })

  it("escapes new quotes too when the file's line escapes every one", () => {
    expect(ESCAPES.restore('He said "hi"', 'He said \\"hi\\"', 'He said "hi" and "bye"')).toBe(
      'He said \\"hi\\" and \\"bye\\"',
    )
  })
})
