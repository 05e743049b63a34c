import { describe, expect, it } from "vitest"
import { countNewlines } from "./newlines.ts"

describe("countNewlines", () => {
  it("counts newlines in the whole text or a range", () => {
    expect(countNewlines("")).toBe(0)
    expect(countNewlines("a\nb\n\nc")).toBe(3)
    expect(countNewlines("a\nb\n\nc", 2)).toBe(2)
    expect(countNewlines("a\nb\n\nc", 0, 3)).toBe(1)
    expect(countNewlines("a\nb\n\nc", 0, 4)).toBe(2)
  })
})
