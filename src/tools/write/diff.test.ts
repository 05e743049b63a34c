import { structuredPatch } from "diff"
import { describe, expect, it } from "vitest"
import { changedRegion, countLines, fileDiff, MAX_DIFF_CHARS, trimHunks } from "./diff.ts"

describe("fileDiff", () => {
  it("is a unified diff with the file's path, and counts added and removed lines", () => {
    const result = fileDiff("/p/a.ts", "one\ntwo\nthree\n", "one\n2\nthree\nfour\n")
    expect(result.additions).toBe(2)
    expect(result.deletions).toBe(1)
    expect(result.diff).toBe(
      "Index: /p/a.ts\n===================================================================\n--- /p/a.ts\n+++ /p/a.ts\n" +
        "@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n",
    )
    expect(result.omitted).toBeUndefined()
  })

  it("removes the indentation every line shares", () => {
    const body = (value: number) =>
      [
        "class A {",
        "  method() {",
        ...[1, 2, 3, 4].map((n) => `    const a${n} = ${n}`),
        `    return ${value}`,
      ]
        .concat(
          [5, 6, 7, 8].map((n) => `    const b${n} = ${n}`),
          ["  }", "}", ""],
        )
        .join("\n")
    const result = fileDiff("/p/a.ts", body(1), body(2))
    expect(result.diff).toContain(
      "@@ -3,9 +3,9 @@\n const a1 = 1\n const a2 = 2\n const a3 = 3\n const a4 = 4\n-return 1\n+return 2\n const b5 = 5\n",
    )
  })

  it("of a new file is all additions", () => {
    const result = fileDiff("/p/new.ts", "", "a\nb\n")
    expect(result).toMatchObject({ additions: 2, deletions: 0 })
    expect(result.diff).toContain("@@ -0,0 +1,2 @@\n+a\n+b\n")
  })

  it("of identical texts is empty of hunks", () => {
    const result = fileDiff("/p/a.ts", "same\n", "same\n")
    expect(result).toMatchObject({ additions: 0, deletions: 0 })
    expect(result.diff).not.toContain("@@")
  })

  it("gives line counts instead of a diff for texts too large to diff", () => {
    const big = "x\n".repeat(MAX_DIFF_CHARS / 2 + 1)
    const result = fileDiff("/p/big.txt", "a\nb\n", big)
    expect(result).toEqual({
      diff: "",
      additions: MAX_DIFF_CHARS / 2 + 1,
      deletions: 2,
      omitted: "the file is too large to diff",
    })
  })
})

describe("trimHunks", () => {
  const trimmed = (before: string, after: string) =>
    trimHunks(structuredPatch("f", "f", before, after)).hunks.flatMap((hunk) => hunk.lines)

  it.each([
    ["spaces shared by every line", "  a\n  b\n", "  a\n  c\n", [" a", "-b", "+c"]],
    ["tabs shared by every line", "\t\ta\n\t\tb\n", "\t\ta\n\t\tc\n", [" a", "-b", "+c"]],
    ["only the common part of deeper lines", "  a\n    b\n", "  a\n    c\n", [" a", "-  b", "+  c"]],
    ["nothing when one line is not indented", "a\n  b\n", "a\n  c\n", [" a", "-  b", "+  c"]],
    ["nothing when tabs meet spaces", "\ta\n  b\n", "\ta\n  c\n", [" \ta", "-  b", "+  c"]],
    ["blank lines do not count", "  a\n\n  b\n", "  a\n\n  c\n", [" a", " ", "-b", "+c"]],
  ])("%s", (_, before, after, expected) => {
    expect(trimmed(before, after)).toEqual(expected)
  })

  it("keeps the no-newline marker", () => {
    expect(trimmed("  a", "  b")).toEqual([
      "-a",
      "\\ No newline at end of file",
      "+b",
      "\\ No newline at end of file",
    ])
  })
})

describe("countLines", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["a\r\nb\r\n", 2],
    ["\n\n", 2],
  ])("%j has %i lines", (text, count) => {
    expect(countLines(text)).toBe(count)
  })
})

describe("changedRegion", () => {
  it.each([
    ["a\nb\nc\n", "a\nb\nc\n", { removed: 0, added: 0, minimumChanges: 0 }],
    ["a\nb\nc\n", "a\nX\nc\n", { removed: 1, added: 1, minimumChanges: 2 }],
    ["a\nb\nc\nd\n", "a\nc\nb\nd\n", { removed: 2, added: 2, minimumChanges: 0 }],
    ["", "a\nb\n", { removed: 0, added: 2, minimumChanges: 2 }],
    ["a\nb\n", "", { removed: 2, added: 0, minimumChanges: 2 }],
    ["a\nb", "a\nb\n", { removed: 0, added: 0, minimumChanges: 0 }],
  ])("%j → %j", (before, after, expected) => {
    expect(changedRegion(before, after)).toEqual(expected)
  })
})

describe("rewrites", () => {
  it("skips the diff of a rewrite quickly, with the region's line counts", () => {
    const before = "00\n".repeat(20_000)
    const after = "01\n".repeat(20_000)
    const start = performance.now()
    const result = fileDiff("/p/f", before, after)
    expect(performance.now() - start).toBeLessThan(200)
    expect(result).toEqual({
      diff: "",
      additions: 20_000,
      deletions: 20_000,
      omitted: "too many lines changed to show a diff (20000 replaced by 20000)",
    })
  })

  it("still diffs scattered edits of a large file", () => {
    const lines = Array.from({ length: 20_000 }, (_, index) => `line ${index}`)
    const before = lines.join("\n")
    const after = lines.map((line, index) => (index % 400 === 0 ? `${line} changed` : line)).join("\n")
    const result = fileDiff("/p/f", before, after)
    expect(result).toMatchObject({ additions: 50, deletions: 50 })
    expect(result.diff).toContain("-line 400\n+line 400 changed\n")
  })
})
