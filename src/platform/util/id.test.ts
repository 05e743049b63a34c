import { describe, expect, it } from "vitest"
import { ascending, PER_MS, timeSortable } from "./id.ts"

describe("ids", () => {
  it("sort by creation time within a process, also many in one millisecond", () => {
    const now = Date.now()
    const ids = Array.from({ length: 1000 }, () => timeSortable(now))
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
    expect(PER_MS).toBeGreaterThan(1000)
  })

  it("carry a prefix and 26 characters", () => {
    expect(ascending("prt")).toMatch(/^prt_[0-9a-f]{12}[0-9A-Za-z]{14}$/)
  })
})

describe("the random tail", () => {
  it("is drawn fresh for every id (5,000 distinct tails over the whole base62 alphabet)", () => {
    const tails = Array.from({ length: 5000 }, () => ascending("x").slice(2 + 12))
    expect(new Set(tails).size).toBe(tails.length)
    expect(new Set(tails.join("")).size).toBe(62)
  })
})
