import { describe, expect, it } from "vitest"
import { describeMatch } from "./describe-match.ts"

describe("describeMatch", () => {
  it("says nothing for an exact match without normalisation", () => {
    expect(describeMatch("exact", undefined, [3])).toBeUndefined()
  })

  it("passes on what an exact match reconciled", () => {
    expect(describeMatch("exact", "newString's line breaks written as CRLF, as the file uses", [1])).toBe(
      "Note: newString's line breaks written as CRLF, as the file uses.",
    )
  })

  it("names the matcher, the lines and the normalisation of a loose match", () => {
    expect(describeMatch("line-trimmed", "matched ignoring indentation", [12])).toBe(
      "Note: oldString did not match the file exactly (line-trimmed matcher, at line 12): matched ignoring indentation. Copy oldString from the file as it is to match exactly next time.",
    )
  })

  it("names at most ten lines", () => {
    const lines = Array.from({ length: 30 }, (_, i) => i + 1)
    expect(describeMatch("whitespace-normalised", "x", lines)).toContain(
      "at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...)",
    )
  })
})
