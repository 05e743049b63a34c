import { applyPatch, diffLines, formatPatch, structuredPatch } from "diff"
import { describe, expect, it } from "vitest"
import { changedRegion, countLines, fileDiff, MAX_DIFF_CHARS, trimDiff, trimHunks } from "./diff.ts"

describe("fileDiff", () => {
  it("gives a unified diff and counts that agree with it", () => {
    const result = fileDiff({ file: "/p/a.txt", before: "a\nb\nc\n", after: "a\nB\nB2\nc\n" })
    expect(result.patch).toContain("--- /p/a.txt\n+++ /p/a.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n")
    expect(result).toMatchObject({ additions: 2, deletions: 1 })
  })

  it("names both files of a move", () => {
    const result = fileDiff({ file: "/p/old.txt", to: "/p/new.txt", before: "x\n", after: "y\n" })
    expect(result.patch).toContain("--- /p/old.txt\n+++ /p/new.txt\n")
  })

  it("counts every line of a created or deleted file", () => {
    expect(fileDiff({ file: "f", before: "", after: "1\n2\n3\n" })).toMatchObject({
      additions: 3,
      deletions: 0,
    })
    expect(fileDiff({ file: "f", before: "1\n2\n", after: "" })).toMatchObject({ additions: 0, deletions: 2 })
  })

  it("ignores the BOM and reads CRLF as LF", () => {
    const result = fileDiff({ file: "f", before: "\uFEFFa\r\nb\r\n", after: "a\nc\n" })
    expect(result.patch).not.toMatch(/[\r\uFEFF]/)
    expect(result).toMatchObject({ additions: 1, deletions: 1 })
  })

  it("compares line endings as they are with exactLineEndings", () => {
    const result = fileDiff({ file: "f", before: "a\r\nb\r\n", after: "a\nb\n", exactLineEndings: true })
    expect(result).toMatchObject({ additions: 2, deletions: 2 })
    expect(result.patch).toContain("-a\r\n-b\r\n+a\n+b\n")
  })

  it("is empty of hunks when nothing changed", () => {
    expect(fileDiff({ file: "f", before: "a\n", after: "a\n" })).toMatchObject({ additions: 0, deletions: 0 })
  })
})

describe("trimDiff", () => {
  it("removes the indentation every content line shares, keeping headers", () => {
    const diff = "--- a\n+++ a\n@@ -1,2 +1,2 @@\n     keep()\n-    old()\n+      new()\n"
    expect(trimDiff(diff)).toBe("--- a\n+++ a\n@@ -1,2 +1,2 @@\n keep()\n-old()\n+  new()\n")
  })

  it("ignores blank lines when finding the common indentation", () => {
    const diff = "@@ -1,3 +1,3 @@\n \ttab()\n \n-\told()\n+\tnew()"
    expect(trimDiff(diff)).toBe("@@ -1,3 +1,3 @@\n tab()\n \n-old()\n+new()")
  })

  it("never trades a tab for spaces: only identical leading characters are common", () => {
    const diff = "@@ -1 +1 @@\n-\told()\n+    new()"
    expect(trimDiff(diff)).toBe(diff)
  })

  it("counts a removed line that looks like a header (an SQL comment) as content", () => {
    const diff = "--- a\n+++ a\n@@ -1,2 +1,2 @@\n   select 1\n--- old\n+  -- new\n"
    expect(trimDiff(diff)).toBe(diff)
  })

  it("leaves a diff with an unindented line alone", () => {
    const diff = "@@ -1 +1 @@\n class A {\n-  a()\n+  b()"
    expect(trimDiff(diff)).toBe(diff)
  })
})

describe("fileDiff on big files", () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i % 7}`)
  const text = `${lines.join("\n")}\n`

  it.each<[string, (l: string[]) => string[]]>([
    ["a change in the middle", (l) => l.map((line, i) => (i === 10_000 ? "changed" : line))],
    ["an insertion at the start", (l) => ["new", ...l]],
    ["a deletion at the end", (l) => l.slice(0, -2)],
    ["a change of the last line", (l) => [...l.slice(0, -1), "last"]],
    ["two distant changes", (l) => l.map((line, i) => (i === 5 || i === 19_990 ? "x" : line))],
    ["a repeated line inserted among repeats", (l) => [...l.slice(0, 700), "line 0", ...l.slice(700)]],
  ])("numbers the hunks as a whole-file diff would, for %s", (_, change) => {
    const after = `${change(lines).join("\n")}\n`
    const result = fileDiff({ file: "f", before: text, after })
    const whole = structuredPatch("f", "f", text, after, undefined, undefined, { context: 3 })
    expect(result.patch).toBe(formatPatch(whole))
  })

  it.each<[string, string]>([
    ["\n\nb\n", "\n\nB\n"],
    ["\na\n", "x\na\n"],
    ["a\n", "\na\n"],
    ["\n\n\n\n\n\nz", "\n\n\n\n\n\n"],
    ["same\nlines\n", "same\nlines\nmore\n"],
    ["a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\nd\ne\nf\ng\n"],
    ["x\nfoo\nbar\nbaz\nqux\n", "xy\nfoo\nbar\nbaz\nqux\n"],
    ["ab\n\ncd\n", "ab\ncd\n"],
  ])("matches a whole-file diff at the edges: %j → %j", (before, after) => {
    const whole = structuredPatch("f", "f", before, after, undefined, undefined, { context: 3 })
    expect(fileDiff({ file: "f", before, after }).patch).toBe(formatPatch(whole))
  })

  it("handles texts without a final line break", () => {
    const result = fileDiff({ file: "f", before: "a\nb\nc\nd\ne", after: "a\nb\nc\nd\nE" })
    expect(result.patch).toBe(
      formatPatch(
        structuredPatch("f", "f", "a\nb\nc\nd\ne", "a\nb\nc\nd\nE", undefined, undefined, { context: 3 }),
      ),
    )
  })
})

describe("fileDiff on random texts", () => {
  it("always gives a patch that turns before into after, with minimal counts", () => {
    let seed = 42
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const text = () => {
      const lines = Array.from({ length: random(12) }, () => ["", "a", "b", "c"][random(4)]!)
      return lines.join("\n") + (random(2) ? "\n" : "")
    }
    for (let round = 0; round < 500; round++) {
      const before = text()
      const after = random(3) ? text() : before.replace(/b/, "B")
      const result = fileDiff({ file: "f", before, after })
      expect(applyPatch(before, result.patch ?? "")).toBe(after)
      let additions = 0
      let deletions = 0
      for (const change of diffLines(before, after)) {
        if (change.added) additions += change.count
        if (change.removed) deletions += change.count
      }
      expect([result.additions, result.deletions]).toEqual([additions, deletions])
    }
  })
})

describe("fileDiff: the diff shown", () => {
  it("is a unified diff with the file's path, and counts added and removed lines", () => {
    const result = fileDiff({ file: "/p/a.ts", before: "one\ntwo\nthree\n", after: "one\n2\nthree\nfour\n" })
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
    const result = fileDiff({ file: "/p/a.ts", before: body(1), after: body(2), context: 4 })
    expect(result.diff).toContain(
      "@@ -3,9 +3,9 @@\n const a1 = 1\n const a2 = 2\n const a3 = 3\n const a4 = 4\n-return 1\n+return 2\n const b5 = 5\n",
    )
  })

  it("of a new file is all additions", () => {
    const result = fileDiff({ file: "/p/new.ts", before: "", after: "a\nb\n" })
    expect(result).toMatchObject({ additions: 2, deletions: 0 })
    expect(result.diff).toContain("@@ -0,0 +1,2 @@\n+a\n+b\n")
  })

  it("of identical texts is empty of hunks", () => {
    const result = fileDiff({ file: "/p/a.ts", before: "same\n", after: "same\n" })
    expect(result).toMatchObject({ additions: 0, deletions: 0 })
    expect(result.diff).not.toContain("@@")
  })

  it("gives line counts instead of a diff for texts too large to diff", () => {
    const big = "x\n".repeat(MAX_DIFF_CHARS / 2 + 1)
    const result = fileDiff({ file: "/p/big.txt", before: "a\nb\n", after: big })
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
    ["\n", 1],
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
    // Skipping is what keeps it fast (timing is the benchmarks' business): no diff, and the counts.
    const result = fileDiff({ file: "/p/f", before, after })
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
    const result = fileDiff({ file: "/p/f", before, after })
    expect(result).toMatchObject({ additions: 50, deletions: 50 })
    expect(result.diff).toContain("-line 400\n+line 400 changed\n")
  })
})
