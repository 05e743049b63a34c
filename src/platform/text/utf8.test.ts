import { describe, expect, it } from "vitest"
import { clipChars, safeBoundary, utf8Prefix, utf8Suffix } from "./utf8.ts"

const samples = ["plain ascii text", "héllo wörld", "日本語のテキスト", "a😀b🎉c👍🏽d", "mixé日😀x"]

describe("utf8Prefix / utf8Suffix", () => {
  for (const text of samples) {
    it(`cuts ${JSON.stringify(text)} on code point boundaries at every budget`, () => {
      const total = Buffer.byteLength(text)
      for (let budget = 0; budget <= total + 1; budget++) {
        const head = utf8Prefix(text, 0, text.length, budget)
        const prefix = text.slice(0, head.index)
        expect(Buffer.byteLength(prefix)).toBe(head.bytes)
        expect(head.bytes).toBeLessThanOrEqual(budget)
        expect(Buffer.from(prefix).toString()).toBe(prefix)
        // Maximal: the next code point would not have fitted.
        const next = [...text.slice(head.index)][0]
        if (next !== undefined) expect(head.bytes + Buffer.byteLength(next)).toBeGreaterThan(budget)

        const tail = utf8Suffix(text, 0, text.length, budget)
        const suffix = text.slice(tail.index)
        expect(Buffer.byteLength(suffix)).toBe(tail.bytes)
        expect(tail.bytes).toBeLessThanOrEqual(budget)
        expect(Buffer.from(suffix).toString()).toBe(suffix)
        const before = [...text.slice(0, tail.index)].at(-1)
        if (before !== undefined) expect(tail.bytes + Buffer.byteLength(before)).toBeGreaterThan(budget)
      }
    })
  }

  it("works within a range of a larger string", () => {
    const text = "xx\n😀😀😀\nyy"
    expect(utf8Prefix(text, 3, 9, 9)).toEqual({ index: 7, bytes: 8 })
    expect(utf8Suffix(text, 3, 9, 5)).toEqual({ index: 7, bytes: 4 })
  })

  it("counts a lone surrogate as the 3 bytes of U+FFFD, as Buffer does", () => {
    const text = "a\ud800b"
    expect(utf8Prefix(text, 0, text.length, 100).bytes).toBe(Buffer.byteLength(text))
  })
})

describe("clipChars / safeBoundary", () => {
  it("never ends a clip on half of a surrogate pair", () => {
    expect(clipChars("ab😀", 3)).toBe("ab")
    expect(clipChars("ab😀", 4)).toBe("ab😀")
    expect(clipChars("abc", 10)).toBe("abc")
  })

  it("moves a boundary inside a pair back by one unit", () => {
    expect(safeBoundary("a😀b", 2)).toBe(1)
    expect(safeBoundary("a😀b", 3)).toBe(3)
    expect(safeBoundary("a😀b", 0)).toBe(0)
  })
})
