import { describe, expect, it } from "vitest"
import { type Cut, cut } from "./cut.ts"

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`)

function truncated(result: Cut) {
  if (!result.truncated) throw new Error("expected the output to be truncated")
  return result
}

describe("cut: limits", () => {
  it("leaves output within both limits alone, limits included", () => {
    const text = numbered(10).join("\n")
    expect(cut(text, { maxLines: 10, maxBytes: Buffer.byteLength(text), direction: "head" })).toEqual({
      truncated: false,
    })
    expect(cut("", { maxLines: 1, maxBytes: 1, direction: "tail" })).toEqual({ truncated: false })
  })

  it("head: 100 lines with maxLines 10 keeps the first 10 and reports 90 lines removed", () => {
    const result = truncated(
      cut(numbered(100).join("\n"), { maxLines: 10, maxBytes: 51200, direction: "head" }),
    )
    expect(result).toMatchObject({
      preview: numbered(10).join("\n"),
      removed: 90,
      unit: "lines",
      totalLines: 100,
      keptLines: 10,
      firstCutLine: 11,
      lastCutLine: 100,
    })
  })

  it("tail: keeps the last lines and points at the cut lines before them", () => {
    const result = truncated(
      cut(numbered(100).join("\n"), { maxLines: 10, maxBytes: 51200, direction: "tail" }),
    )
    expect(result).toMatchObject({
      preview: numbered(100).slice(90).join("\n"),
      removed: 90,
      unit: "lines",
      keptLines: 10,
      firstCutLine: 1,
      lastCutLine: 90,
    })
  })

  it("does not count a trailing newline as an extra empty line (opencode does)", () => {
    const result = truncated(cut("a\nb\nc\n", { maxLines: 2, maxBytes: 100, direction: "tail" }))
    expect(result).toMatchObject({
      preview: "b\nc",
      totalLines: 3,
      removed: 1,
      unit: "lines",
      lastCutLine: 1,
    })
  })

  it("head: stops at the byte limit on a line boundary and reports bytes removed", () => {
    const text = Array.from({ length: 20 }, () => "x".repeat(9)).join("\n") // 20 lines, 199 bytes
    const result = truncated(cut(text, { maxLines: 100, maxBytes: 35, direction: "head" }))
    // 9 + (1 + 9) + (1 + 9) = 29 bytes; a fourth line would make 39.
    expect(result).toMatchObject({
      preview: ["x".repeat(9), "x".repeat(9), "x".repeat(9)].join("\n"),
      removed: 199 - 29,
      unit: "bytes",
      totalBytes: 199,
      keptLines: 3,
      firstCutLine: 4,
    })
  })

  it("tail: stops at the byte limit on a line boundary", () => {
    const text = numbered(20).join("\n")
    const result = truncated(cut(text, { maxLines: 100, maxBytes: 16, direction: "tail" }))
    expect(result).toMatchObject({
      preview: "line 19\nline 20",
      unit: "bytes",
      keptLines: 2,
      lastCutLine: 18,
    })
    expect(result.removed).toBe(Buffer.byteLength(text) - 15)
  })

  it("measures UTF-8 bytes, not characters", () => {
    const text = ["ééééé", "ééééé", "ééééé"].join("\n") // 10 bytes a line
    const result = truncated(cut(text, { maxLines: 10, maxBytes: 21, direction: "head" }))
    expect(result).toMatchObject({ preview: "ééééé\nééééé", keptLines: 2, unit: "bytes", removed: 32 - 21 })
  })
})

describe("cut: a first line over the byte limit", () => {
  it("keeps 100 bytes of 1000 × 'a' instead of an empty preview (opencode's test values)", () => {
    const text = "a".repeat(1000)
    const head = truncated(cut(text, { maxLines: 2000, maxBytes: 100, direction: "head" }))
    expect(head).toMatchObject({ preview: "a".repeat(100), removed: 900, unit: "bytes", keptLines: 0 })
    expect(head).toMatchObject({ firstCutLine: 1, lastCutLine: 1 })
    const tail = truncated(cut(text, { maxLines: 2000, maxBytes: 100, direction: "tail" }))
    expect(tail).toMatchObject({ preview: "a".repeat(100), removed: 900, unit: "bytes", lastCutLine: 1 })
  })

  it.each([
    ["two-byte", "é".repeat(300)],
    ["three-byte", "日本語".repeat(100)],
    ["emoji", "😀".repeat(100)],
    ["emoji with modifiers", "👍🏽x".repeat(100)],
    ["mixed", "a😀é日".repeat(80)],
  ])("keeps valid UTF-8 within the limit for %s text", (_, line) => {
    const text = `${line}\nsecond line`
    for (let maxBytes = 1; maxBytes <= 40; maxBytes++) {
      const head = truncated(cut(text, { maxLines: 10, maxBytes, direction: "head" }))
      expect(text.startsWith(head.preview)).toBe(true)
      expect(Buffer.byteLength(head.preview)).toBeLessThanOrEqual(maxBytes)
      expect(Buffer.byteLength(head.preview)).toBeGreaterThan(maxBytes - 4)
      expect(Buffer.from(head.preview).toString()).toBe(head.preview)
      expect(head.removed).toBe(Buffer.byteLength(text) - Buffer.byteLength(head.preview))

      const last = `second\n${line}`
      const tail = truncated(cut(last, { maxLines: 10, maxBytes, direction: "tail" }))
      expect(last.endsWith(tail.preview)).toBe(true)
      expect(Buffer.byteLength(tail.preview)).toBeLessThanOrEqual(maxBytes)
      expect(Buffer.byteLength(tail.preview)).toBeGreaterThan(maxBytes - 4)
      expect(Buffer.from(tail.preview).toString()).toBe(tail.preview)
    }
  })

  it("does not cut inside a later line: that line is simply not kept", () => {
    const text = `short\n${"y".repeat(500)}`
    expect(truncated(cut(text, { maxLines: 10, maxBytes: 100, direction: "head" }))).toMatchObject({
      preview: "short",
      keptLines: 1,
      firstCutLine: 2,
    })
  })
})

describe("cut: signals from the cut region", () => {
  const output = [
    "RUN v5.1.1",
    "FAIL src/early.test.ts > shown in the preview",
    ...numbered(40),
    "FAIL src/x.test.ts > adds",
    "Error: expected 3 to be 4",
    "    at Object.<anonymous> (src/x.test.ts:3:9)",
    "    at runTest (node_modules/vitest/dist/index.js:1:1)",
    ...numbered(40),
    "Tests: 1 failed, 3 passed",
  ]
  const text = output.join("\n")

  it("head: reports error and summary lines after the preview with their line numbers, not stack frames", () => {
    const result = truncated(cut(text, { maxLines: 5, maxBytes: 51200, direction: "head" }))
    expect(result.signals).toEqual([
      { line: 43, text: "FAIL src/x.test.ts > adds" },
      { line: 44, text: "Error: expected 3 to be 4" },
      { line: 87, text: "Tests: 1 failed, 3 passed" },
    ])
  })

  it("tail: reports signal lines before the preview, not those in it", () => {
    const result = truncated(cut(text, { maxLines: 3, maxBytes: 51200, direction: "tail" }))
    expect(result.preview.endsWith("Tests: 1 failed, 3 passed")).toBe(true)
    expect(result.signals).toEqual([
      { line: 2, text: "FAIL src/early.test.ts > shown in the preview" },
      { line: 43, text: "FAIL src/x.test.ts > adds" },
      { line: 44, text: "Error: expected 3 to be 4" },
    ])
  })

  it("does not report a partly shown first line, only the lines after it", () => {
    const long = `Error: ${"z".repeat(200)}`
    const result = truncated(cut(`${long}\nok\nFAIL b`, { maxLines: 10, maxBytes: 50, direction: "head" }))
    expect(result.signals).toEqual([{ line: 3, text: "FAIL b" }])
    const tail = truncated(cut(`FAIL a\nok\n${long}`, { maxLines: 10, maxBytes: 50, direction: "tail" }))
    expect(tail.signals).toEqual([{ line: 1, text: "FAIL a" }])
  })

  it("has no signals when the cut region has none", () => {
    expect(
      truncated(cut(numbered(50).join("\n"), { maxLines: 5, maxBytes: 51200, direction: "head" })).signals,
    ).toEqual([])
  })
})

describe("cut: large input", () => {
  it("handles a few million lines and gives the same numbers as a naive split", () => {
    const lines = Array.from({ length: 300_000 }, (_, i) =>
      i === 250_000 ? "Error: disk on fire" : `2026-01-01 INFO request ${i} ok`,
    )
    const text = lines.join("\n")
    const result = truncated(cut(text, { maxLines: 2000, maxBytes: 51200, direction: "head" }))
    let bytes = 0
    let kept = 0
    while (kept < 2000 && bytes + Buffer.byteLength(lines[kept]!) + (kept > 0 ? 1 : 0) <= 51200) {
      bytes += Buffer.byteLength(lines[kept]!) + (kept > 0 ? 1 : 0)
      kept++
    }
    expect(result.keptLines).toBe(kept)
    expect(result.preview).toBe(lines.slice(0, kept).join("\n"))
    expect(result.totalLines).toBe(300_000)
    expect(result.totalBytes).toBe(Buffer.byteLength(text))
    expect(result.signals).toEqual([{ line: 250_001, text: "Error: disk on fire" }])
  })

  it("treats a final newline as the end of the last line, not an extra empty line", () => {
    const exact = `${Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n")}\n`
    expect(cut(exact, { maxLines: 10, maxBytes: 10_000, direction: "head" })).toEqual({ truncated: false })
    const over = `${Array.from({ length: 12 }, (_, i) => `l${i}`).join("\n")}\n`
    const result = cut(over, { maxLines: 10, maxBytes: 10_000, direction: "tail" })
    expect(result).toMatchObject({ truncated: true, removed: 2, unit: "lines", totalLines: 12 })
    expect(result.truncated && result.preview.endsWith("l11")).toBe(true)
  })
})
