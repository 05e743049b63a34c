import { describe, expect, it } from "vitest"
import { bigrams, dice, levenshtein, similarity } from "./similarity.ts"

describe("levenshtein", () => {
  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["", "abc", 3],
    ["kitten", "sitting", 3],
    ["flaw", "lawn", 2],
    ["same", "same", 0],
    ["héllo 👋", "hello 👋", 1],
  ])("%j → %j is %i", (a, b, distance) => {
    expect(levenshtein(a, b)).toBe(distance)
    expect(levenshtein(b, a)).toBe(distance)
  })
})

describe("similarity", () => {
  it("is 1 for equal strings (empty ones too) and 0 for nothing in common", () => {
    expect(similarity("", "")).toBe(1)
    expect(similarity("abc", "abc")).toBe(1)
    expect(similarity("abc", "xyz")).toBe(0)
  })

  it("is 1 − distance / longer length", () => {
    expect(similarity("return x", "return y")).toBeCloseTo(1 - 1 / 8)
  })

  it("falls back to bigrams for very long lines, and stays in range", () => {
    const a = "x".repeat(600) + "abc"
    const b = "x".repeat(600) + "abd"
    const score = similarity(a, b)
    expect(score).toBeGreaterThan(0.9)
    expect(score).toBeLessThanOrEqual(1)
  })
})

describe("dice", () => {
  it("compares bigram multisets", () => {
    expect(dice(bigrams("night"), bigrams("nacht"))).toBeCloseTo(0.25)
    expect(dice(bigrams(""), bigrams(""))).toBe(1)
    expect(dice(bigrams("a"), bigrams(""))).toBe(0)
    expect(dice(bigrams("a"), bigrams("a"))).toBe(1)
  })
})
