import { describe, expect, it } from "vitest"
import { ERROR_LIMITS, elide } from "./elide.ts"

const limits = { run: 50, line: 80, total: 200 }

describe("elide", () => {
  it.each([
    ["short text", "File not found: a.txt", "File not found: a.txt"],
    ["a run at the limit", `a ${"x".repeat(50)} b`, `a ${"x".repeat(50)} b`],
    [
      "an over-long run",
      `Skill "${"x".repeat(100)}" not found.`,
      'Skill "xxxxxxxxx…[88 characters cut]…xxx" not found.',
    ],
    [
      "an over-long line of short words",
      `${"ab ".repeat(40)}\nnext`,
      "ab ab ab ab ab ab ab ab ab ab …[76 characters cut]…b ab ab ab ab \nnext",
    ],
  ])("%s", (_, text, expected) => {
    expect(elide(text, limits)).toBe(expected)
  })

  it("keeps the start and the end of a text over its total, within the total", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n")
    const out = elide(text, limits)
    expect(out.length).toBeLessThanOrEqual(200)
    expect(out.startsWith("line 0\nline 1\n")).toBe(true)
    expect(out.endsWith("line 98\nline 99")).toBe(true)
    expect(out).toMatch(/…\[\d+ characters cut\]…/)
  })

  it("never splits a surrogate pair", () => {
    for (const text of ["😀".repeat(100), `a${"😀".repeat(100)}`]) {
      expect(elide(text, limits)).not.toMatch(
        /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
      )
    }
  })

  it("shortens 5 MB echoed in an error to well under 4 KB, and leaves a whole edit diff alone", () => {
    expect(elide(`Invalid URL: ${"x".repeat(5 * 1024 * 1024)}. Give a full URL.`).length).toBeLessThan(1000)
    expect(elide(`Got: ${"word ".repeat(1024 * 1024)}`).length).toBeLessThanOrEqual(ERROR_LIMITS.line)
    const diff = Array.from({ length: 100 }, (_, i) => `- ${i}: const value${i} = compute(${i})`).join("\n")
    expect(elide(diff)).toBe(diff)
  })
})
