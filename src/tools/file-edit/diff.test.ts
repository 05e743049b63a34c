import { applyPatch, diffLines, formatPatch, structuredPatch } from "diff"
import { describe, expect, it } from "vitest"
import { fileDiff, trimDiff } from "./diff.ts"

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
      expect(applyPatch(before, result.patch)).toBe(after)
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
