import { describe, expect, it } from "vitest"
import type { GrepResult } from "../../platform/search/index.ts"
import { cutLine, formatGrep, MAX_LINE } from "./format.ts"

const result = (partial: Partial<GrepResult>): GrepResult => ({
  files: [],
  totalMatches: 0,
  totalFiles: 0,
  timedOut: false,
  ...partial,
})

describe("formatGrep", () => {
  it("says when nothing matched, and when that may be because of the time limit", () => {
    expect(formatGrep(result({}), "content", "30 s")).toEqual({
      output: "No matches found",
      shown: 0,
      truncated: false,
    })
    expect(formatGrep(result({ timedOut: true }), "count", "30 s").output).toBe(
      "No matches found before the time limit of 30 s. Use a more specific path or include to search fewer files, or a simpler pattern (nested repeats such as (a+)+ can take exponential time).",
    )
  })

  it("counts and lists files in the other modes, saying how many were left out", () => {
    const files = [
      { path: "/p/a", mtimeMs: 2, count: 3 },
      { path: "/p/b", mtimeMs: 1, count: 1 },
    ]
    expect(formatGrep(result({ files, totalMatches: 9, totalFiles: 5 }), "count", "30 s")).toEqual({
      output: [
        "Found 9 matches in 5 files",
        "/p/a: 3",
        "/p/b: 1",
        "",
        "(Showing the 2 most recently modified of 5 files. Use a more specific pattern, path or include to narrow the results.)",
      ].join("\n"),
      shown: 2,
      truncated: true,
    })
    expect(
      formatGrep(result({ files, totalMatches: 4, totalFiles: 2 }), "files_with_matches", "30 s").output,
    ).toBe(["Found 2 files", "/p/a", "/p/b"].join("\n"))
  })

  it("adds the time-limit note after partial results", () => {
    const files = [{ path: "/p/a", mtimeMs: 1, count: 1, lines: [{ line: 1, text: "x", match: true }] }]
    const { output } = formatGrep(
      result({ files, totalMatches: 1, totalFiles: 1, timedOut: true }),
      "content",
      "1.5 s",
    )
    expect(output).toBe(
      [
        "Found 1 match in 1 file",
        "",
        "/p/a:",
        "  Line 1: x",
        "",
        "(The search stopped at its time limit of 1.5 s: the results and totals above cover only what was searched by then. Use a more specific path or include to search fewer files, or a simpler pattern (nested repeats such as (a+)+ can take exponential time).)",
      ].join("\n"),
    )
  })
})

describe("cutLine", () => {
  it("keeps short lines and cuts long ones at 2000 characters", () => {
    expect(cutLine("short")).toBe("short")
    expect(cutLine("x".repeat(MAX_LINE))).toBe("x".repeat(MAX_LINE))
    expect(cutLine("x".repeat(MAX_LINE + 1))).toBe(`${"x".repeat(MAX_LINE)}...`)
  })

  it("never splits a surrogate pair", () => {
    const text = `${"x".repeat(MAX_LINE - 1)}😀tail`
    expect(cutLine(text)).toBe(`${"x".repeat(MAX_LINE - 1)}...`)
  })
})
