import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { compilePattern, type PatternOptions } from "./regex.ts"
import { FileSearcher } from "./scan-file.ts"
import { Kernel } from "./simd.ts"

const dir = mkdtempSync(join(tmpdir(), "toolbelt-scan-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let serial = 0
function file(content: string | Buffer): string {
  const path = join(dir, `f${serial++}`)
  writeFileSync(path, content)
  return path
}

function searcher(pattern: string, options: PatternOptions = {}, chunk?: number) {
  return new FileSearcher(compilePattern(pattern, options), chunk ? new Kernel(chunk) : undefined)
}

const lines = (count: number, make: (n: number) => string) =>
  Array.from({ length: count }, (_, k) => make(k + 1)).join("\n")

describe("FileSearcher.count", () => {
  it("counts matching lines, not matches", () => {
    expect(searcher("foo").count(file("foo foo\nbar\nfoo\n"))?.count).toBe(2)
  })

  it("returns nothing for a file without matches", () => {
    expect(searcher("zzz").count(file("foo\n"))).toBeUndefined()
  })

  it("skips binary files: a NUL byte anywhere, before or after the match", () => {
    expect(searcher("foo").count(file(Buffer.from("foo\n\0bar\n")))).toBeUndefined()
    expect(
      searcher("foo").count(
        file(Buffer.concat([Buffer.from("foo\n"), Buffer.alloc(300_000, 0x61), Buffer.from("\0")])),
      ),
    ).toBeUndefined()
  })

  it("stops at maxCount", () => {
    expect(searcher("a").count(file("a\na\na\na\n"), 2)?.count).toBe(2)
  })

  it("drops a UTF-8 BOM and transcodes UTF-16 with a BOM", () => {
    expect(searcher("^foo").count(file(Buffer.from("\uFEFFfoo\n")))?.count).toBe(1)
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("foo\nbar foo\n", "utf16le")])
    expect(searcher("foo").count(file(le))?.count).toBe(2)
    const be = Buffer.from("foo\n", "utf16le").swap16()
    expect(searcher("^foo$").count(file(Buffer.concat([Buffer.from([0xfe, 0xff]), be])))?.count).toBe(1)
  })

  it("finds matches across chunk boundaries, with a tiny buffer", () => {
    const content = lines(5000, (n) => (n % 7 === 0 ? `line ${n} needle here` : `line ${n} nothing`))
    expect(searcher("needle", {}, 1024).count(file(content))?.count).toBe(714)
    expect(searcher("^line \\d+ n", {}, 1024).count(file(content))?.count).toBe(5000)
  })

  it("handles a line longer than the buffer", () => {
    const long = `${"x".repeat(5000)}needle${"y".repeat(5000)}\nneedle\n`
    expect(searcher("needle", {}, 1024).count(file(long))?.count).toBe(2)
  })

  it("matches Unicode text with the regex when there is no literal", () => {
    expect(searcher("^\\w+$").count(file("naïve\ncafé au lait\n日本語\n"))?.count).toBe(2)
    expect(searcher("é$").count(file("café\nété x\n"))?.count).toBe(1)
  })

  it("matches case-insensitively, Unicode folding included", () => {
    expect(
      searcher("pm_resume", { ignoreCase: true }).count(file("PM_RESUME\npm_Resume\nPM_RESUMEX\n"))?.count,
    ).toBe(3)
    expect(searcher("mask", { ignoreCase: true }).count(file("maſk\nMASK\n"))?.count).toBe(2)
  })

  it("switches to the whole-chunk regex for dense candidates and still counts lines right", () => {
    const content = lines(2000, (n) => (n % 3 === 0 ? "ab" : "a b"))
    expect(searcher("a.b").count(file(content))?.count).toBe(1334)
    expect(searcher("a\\S").count(file(content))?.count).toBe(666)
  })

  it("counts an empty last line only when it exists", () => {
    expect(searcher("^$").count(file("a\n\nb\n"))?.count).toBe(1)
    expect(searcher("^$").count(file("a\nb"))).toBeUndefined()
    expect(searcher("").count(file("a\nb\n"))?.count).toBe(2)
    expect(searcher("$").count(file("a\nb"))?.count).toBe(2)
  })

  it("gives the mtime of a file with matches", () => {
    const path = file("foo\n")
    expect(searcher("foo").count(path)?.mtimeMs).toBeGreaterThan(0)
  })
})

describe("FileSearcher.collect", () => {
  const show = (result: ReturnType<FileSearcher["collect"]>) =>
    result?.map((line) => `${line.line}${line.match ? ":" : "-"}${line.text}`)

  it("returns matching lines with numbers, CR dropped", () => {
    expect(show(searcher("b").collect(file("a\r\nb\r\nc\nb"), { quota: 10, before: 0, after: 0 }))).toEqual([
      "2:b",
      "4:b",
    ])
  })

  it("adds context before and after, merged, never duplicated", () => {
    const content = lines(20, (n) => (n === 5 || n === 7 || n === 15 ? `hit ${n}` : `line ${n}`))
    expect(show(searcher("hit").collect(file(content), { quota: 10, before: 2, after: 1 }))).toEqual([
      "3-line 3",
      "4-line 4",
      "5:hit 5",
      "6-line 6",
      "7:hit 7",
      "8-line 8",
      "13-line 13",
      "14-line 14",
      "15:hit 15",
      "16-line 16",
    ])
  })

  it("stops at the quota, showing the after-context of the last kept match (matches in it as context)", () => {
    const content = lines(10, (n) => (n >= 3 ? `hit ${n}` : `line ${n}`))
    expect(show(searcher("hit").collect(file(content), { quota: 2, before: 1, after: 2 }))).toEqual([
      "2-line 2",
      "3:hit 3",
      "4:hit 4",
      "5-hit 5",
      "6-hit 6",
    ])
  })

  it("keeps line numbers and context right across chunk boundaries", () => {
    const content = lines(3000, (n) => (n % 250 === 0 ? `hit ${n}` : `line ${n}`))
    const result = searcher("hit", {}, 1024).collect(file(content), { quota: 100, before: 2, after: 2 })
    const expected = searcher("hit").collect(file(content), { quota: 100, before: 2, after: 2 })
    expect(show(result)).toEqual(show(expected))
    expect(show(result)?.slice(0, 5)).toEqual([
      "248-line 248",
      "249-line 249",
      "250:hit 250",
      "251-line 251",
      "252-line 252",
    ])
    expect(result?.filter((line) => line.match)).toHaveLength(12)
  })

  it("numbers lines after a BOM from 1", () => {
    expect(
      show(searcher("b").collect(file(Buffer.from("\uFEFFa\nb\n")), { quota: 5, before: 1, after: 0 })),
    ).toEqual(["1-a", "2:b"])
  })
})
