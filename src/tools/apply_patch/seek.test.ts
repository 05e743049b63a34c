import { describe, expect, it } from "vitest"
import { foldPunctuation, LineMatcher } from "./seek.ts"

describe("foldPunctuation", () => {
  it.each([
    ["‘single’ ‚low‛", "'single' 'low'"],
    ["“double” „low‟", '"double" "low"'],
    ["a‐b‑c‒d–e—f―g−h", "a-b-c-d-e-f-g-h"],
    ["wait…", "wait..."],
    ["a\u00A0b\u2009c\u202Fd\u3000e", "a b c d e"],
    ["zero\u200Bwidth", "zerowidth"],
    ["plain ascii", "plain ascii"],
  ])("%j → %j", (input, output) => {
    expect(foldPunctuation(input)).toBe(output)
  })
})

describe("LineMatcher.seek", () => {
  const matcher = new LineMatcher(["alpha  ", "  beta", "gamma", "“delta”", "alpha", "beta"])

  it.each([
    [["alpha", "  beta"], 0, { index: 0, pass: "trailing-whitespace" }],
    [["alpha", "beta"], 0, { index: 4, pass: "exact" }],
    [["beta"], 0, { index: 5, pass: "exact" }],
    [["beta", "gamma"], 0, { index: 1, pass: "whitespace" }],
    [['"delta"'], 0, { index: 3, pass: "unicode" }],
    [["gamma", "“delta”"], 0, { index: 2, pass: "exact" }],
    [["omega"], 0, undefined],
    [["beta", "gamma"], 2, undefined],
    [[], 3, { index: 3, pass: "exact" }],
  ])("%j from %i", (pattern, start, found) => {
    expect(matcher.seek(pattern, start)).toEqual(found)
  })

  it("scans from the end back to the start with fromEnd", () => {
    expect(matcher.seek(["alpha"], 0, true)).toEqual({ index: 4, pass: "exact" })
    expect(matcher.seek(["alpha"], 5, true)).toBeUndefined()
    expect(matcher.seek([], 0, true)).toEqual({ index: 6, pass: "exact" })
  })

  it("tells the pass needed at one position", () => {
    expect(matcher.matchAt(["alpha"], 0)).toBe("trailing-whitespace")
    expect(matcher.matchAt(["alpha", "beta"], 4)).toBe("exact")
    expect(matcher.matchAt(["alpha", "beta", "x"], 4)).toBeUndefined()
  })

  it("finds a line by its start", () => {
    expect(matcher.seekPrefix("gam", 0)).toBe(2)
    expect(matcher.seekPrefix("  alp", 1)).toBe(4)
    expect(matcher.seekPrefix("", 0)).toBeUndefined()
  })
})
