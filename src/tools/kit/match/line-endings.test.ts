import { describe, expect, it } from "vitest"
import {
  detectLineEnding,
  endingForSpan,
  normaliseLineEndings,
  originalOffset,
  toLF,
  withLineEnding,
} from "./line-endings.ts"

describe("detectLineEnding", () => {
  it.each([
    ["", "\n"],
    ["one line", "\n"],
    ["a\nb\n", "\n"],
    ["a\r\nb\r\n", "\r\n"],
    ["a\r\nb\n", "\r\n"],
    ["a\r\nb\nc\n", "\n"],
    ["lone\rcarriage\rreturns", "\n"],
  ])("%j → %j", (text, ending) => {
    expect(detectLineEnding(text)).toBe(ending)
    expect(toLF(text).ending).toBe(ending)
  })
})

describe("toLF and originalOffset", () => {
  it("leaves LF text alone", () => {
    const lf = toLF("a\nb\n")
    expect(lf).toEqual({ text: "a\nb\n", crlfAt: [], ending: "\n" })
    expect(originalOffset(lf, 3)).toBe(3)
  })

  it("maps LF offsets back to the CRLF original", () => {
    const original = "ab\r\ncd\nef\r\n"
    const lf = toLF(original)
    expect(lf.text).toBe("ab\ncd\nef\n")
    expect(lf.crlfAt).toEqual([2, 8])
    // Every character of the LF text maps to the same character in the original.
    for (let i = 0; i < lf.text.length; i++) {
      const at = originalOffset(lf, i)
      const char = original[at] === "\r" ? original[at + 1] : original[at]
      expect(char).toBe(lf.text[i])
    }
    // A span ending before a CRLF leaves it whole; a span starting at one takes it whole.
    expect(original.slice(originalOffset(lf, 0), originalOffset(lf, 2))).toBe("ab")
    expect(original.slice(originalOffset(lf, 2), originalOffset(lf, 5))).toBe("\r\ncd")
    expect(original.slice(originalOffset(lf, 6), originalOffset(lf, 9))).toBe("ef\r\n")
  })

  it("keeps a lone CR", () => {
    expect(toLF("a\rb\r\n").text).toBe("a\rb\n")
    expect(normaliseLineEndings("a\r\nb\rc")).toBe("a\nb\rc")
  })
})

describe("endingForSpan", () => {
  it("takes the span's own majority, else the file's", () => {
    const lf = toLF("a\r\nb\r\nc\nd\ne\n")
    expect(lf.ending).toBe("\n")
    expect(endingForSpan(lf, 0, 4)).toBe("\r\n") // "a\nb\n": both CRLF
    expect(endingForSpan(lf, 4, 10)).toBe("\n") // "c\nd\ne\n"
    expect(endingForSpan(lf, 0, 1)).toBe("\n") // no line break: the file's
    expect(endingForSpan(lf, 2, 6)).toBe("\n") // one of each: the file's
    expect(endingForSpan(toLF("a\nb"), 0, 3)).toBe("\n")
  })
})

describe("withLineEnding", () => {
  it("converts LF text", () => {
    expect(withLineEnding("a\nb\n", "\r\n")).toBe("a\r\nb\r\n")
    expect(withLineEnding("a\nb\n", "\n")).toBe("a\nb\n")
  })
})
