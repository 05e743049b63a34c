import { appendFile, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest"
import { lineIndexCache } from "./line-index.ts"
import { lineCutMarker } from "./page-collector.ts"
import { readLastLines } from "./read-last-lines.ts"
import { clearLineIndexCache, countLines, readLines } from "./read-lines.ts"
import { readLinesFromBytes } from "./read-lines-from-bytes.ts"
import type { ReadLinesOptions } from "./read-lines-page.ts"
import { hashContent } from "./text.ts"

const MiB = 1024 * 1024
let dir: string

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-lines-")))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

beforeEach(() => {
  clearLineIndexCache()
})

let fileCount = 0
async function file(content: string | Buffer): Promise<string> {
  const path = join(dir, `f${fileCount++}.txt`)
  await writeFile(path, content)
  return path
}

/** The lines of a file as a whole-file split would give them: the reference readLines must match. */
function referenceLines(content: Buffer | string): string[] {
  let text = Buffer.isBuffer(content) ? content.toString("utf8") : content
  if (text.startsWith("\uFEFF")) text = text.slice(1)
  if (text === "") return []
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
  if (text.endsWith("\n")) lines.pop()
  return lines
}

const unlimited: ReadLinesOptions = { limit: Infinity, maxLineLength: Infinity, maxBytes: Infinity }

describe("readLines: small files", () => {
  test.each([
    ["LF with final newline", "a\nb\nc\n", ["a", "b", "c"]],
    ["no final newline", "a\nb\nc", ["a", "b", "c"]],
    ["CRLF", "a\r\nb\r\n", ["a", "b"]],
    ["mixed endings", "a\r\nb\nc\r\n", ["a", "b", "c"]],
    ["lone CR stays in the line", "a\rb\n", ["a\rb"]],
    ["empty lines", "\n\nx\n\n", ["", "", "x", ""]],
    ["only a newline", "\n", [""]],
    ["empty file", "", []],
    ["UTF-8 BOM dropped from line 1 only", "\uFEFFa\n\uFEFFb\n", ["a", "\uFEFFb"]],
    ["multi-byte characters", "héllo\n日本語\n😀 emoji\n", ["héllo", "日本語", "😀 emoji"]],
  ])("%s", async (_, content, expected) => {
    const result = await readLines(await file(content))
    expect(result.lines).toEqual(expected)
    expect(result.totalLines).toBe(expected.length)
    expect(result.lastLine).toBe(expected.length)
    expect(result.more).toBe(false)
    expect(result.truncatedByBytes).toBe(false)
  })

  test("pages with offset and limit", async () => {
    const path = await file(Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"))
    const page = await readLines(path, { offset: 4, limit: 3 })
    expect(page).toMatchObject({
      lines: ["line 4", "line 5", "line 6"],
      lastLine: 6,
      totalLines: 10,
      more: true,
    })
    const last = await readLines(path, { offset: 9, limit: 3 })
    expect(last).toMatchObject({ lines: ["line 9", "line 10"], lastLine: 10, totalLines: 10, more: false })
    expect((await readLines(path, { offset: 0, limit: 1 })).lines).toEqual(["line 1"])
  })

  test("an offset past the end returns no lines, the total, and nothing more", async () => {
    const path = await file("a\nb\n")
    const result = await readLines(path, { offset: 5 })
    expect(result).toMatchObject({ lines: [], lastLine: 4, totalLines: 2, more: false })
    expect(await readLines(path, { offset: 3 })).toMatchObject({ lines: [], totalLines: 2, more: false })
    expect(await readLines(await file(""), { offset: 1 })).toMatchObject({ lines: [], totalLines: 0 })
  })

  test("countTotal: false stops after the page and still knows whether more follows", async () => {
    const path = await file("a\nb\nc\n")
    const some = await readLines(path, { limit: 2, countTotal: false })
    expect(some).toMatchObject({ lines: ["a", "b"], more: true })
    expect(some.totalLines).toBeUndefined()
    const all = await readLines(path, { limit: 3, countTotal: false })
    expect(all).toMatchObject({ lines: ["a", "b", "c"], more: false })
  })

  test("hash: SHA-256 of the whole file, from the same pass", async () => {
    const content = "\uFEFFone\r\ntwo\r\n"
    const result = await readLines(await file(content), { limit: 1, hash: true })
    expect(result.hash).toBe(hashContent(content))
    expect(result.size).toBe(Buffer.byteLength(content))
  })

  test("an aborted signal rejects", async () => {
    await expect(readLines(await file("a\n"), { signal: AbortSignal.abort() })).rejects.toThrow()
  })

  test("a missing file rejects with ENOENT", async () => {
    await expect(readLines(join(dir, "missing.txt"))).rejects.toMatchObject({ code: "ENOENT" })
  })
})

describe("readLines: long lines and byte budget", () => {
  test("a line longer than maxLineLength is cut and marked; one exactly that long is not", async () => {
    const path = await file(`${"x".repeat(10)}\n${"y".repeat(11)}\nshort\n`)
    const result = await readLines(path, { maxLineLength: 10 })
    expect(result.lines).toEqual(["x".repeat(10), `${"y".repeat(10)}${lineCutMarker(10)}`, "short"])
    expect(result.cutLines).toBe(1)
    expect(lineCutMarker(2000)).toBe("... (line truncated to 2000 chars)")
  })

  test("a cut never splits a surrogate pair", async () => {
    const result = await readLines(await file(`ab😀cd\n`), { maxLineLength: 3 })
    expect(result.lines).toEqual([`ab${lineCutMarker(3)}`])
  })

  test("a 5 MiB line (longer than a chunk) is cut, and the lines around it are intact", async () => {
    const long = "é".repeat(2.5 * MiB)
    const path = await file(`before\n${long}\r\nafter\n`)
    const result = await readLines(path, { maxLineLength: 2000 })
    expect(result.lines).toEqual(["before", `${"é".repeat(2000)}${lineCutMarker(2000)}`, "after"])
    expect(result.totalLines).toBe(3)
  })

  test("a huge last line without a newline is cut too", async () => {
    const result = await readLines(await file(`a\n${"z".repeat(3 * MiB)}`), { maxLineLength: 5 })
    expect(result.lines).toEqual(["a", `zzzzz${lineCutMarker(5)}`])
    expect(result.totalLines).toBe(2)
  })

  test("maxBytes stops before the line that would exceed it (bytes + 1 per line)", async () => {
    const path = await file("aaaa\nbbbb\ncccc\ndddd\n")
    const result = await readLines(path, { maxBytes: 12 })
    expect(result).toMatchObject({ lines: ["aaaa", "bbbb"], lastLine: 2, truncatedByBytes: true, more: true })
    expect(result.totalLines).toBe(4)
    const exact = await readLines(path, { maxBytes: 10 })
    expect(exact.lines).toEqual(["aaaa", "bbbb"])
  })

  test("multi-byte characters count as their UTF-8 bytes", async () => {
    const result = await readLines(await file("ééé\nx\n"), { maxBytes: 8 })
    expect(result.lines).toEqual(["ééé"])
    expect(result.truncatedByBytes).toBe(true)
  })

  test("a first line over the whole budget is still shown, cut to fit", async () => {
    const result = await readLines(await file(`${"w".repeat(500)}\nnext\n`), {
      maxBytes: 100,
      maxLineLength: 1000,
    })
    expect(result.lines).toHaveLength(1)
    expect(Buffer.byteLength(result.lines[0]!) + 1).toBeLessThanOrEqual(100)
    expect(result.lines[0]).toMatch(/^w+\.\.\. \(line truncated to \d+ chars\)$/)
    expect(result).toMatchObject({ truncatedByBytes: true, more: true, cutLines: 1 })
  })
})

describe("readLines: chunk boundaries (1 MiB chunks)", () => {
  /** A file whose bytes around each 1 MiB boundary hold `tail` split at every possible point. */
  async function acrossBoundary(tail: string, shift: number): Promise<{ path: string; content: Buffer }> {
    const filler = Buffer.alloc(MiB - shift, "a")
    filler[100] = 0x0a // so the filler is two lines
    const content = Buffer.concat([filler, Buffer.from(`${tail}\nend\n`)])
    return { path: await file(content), content }
  }

  const cases = [
    ["a 4-byte emoji", "x😀y"],
    ["a 3-byte character", "x日y"],
    ["a 2-byte character", "xéy"],
    ["a CRLF pair", "xy\r\nz"],
  ] as const

  for (const [name, tail] of cases) {
    test(`${name} split across the boundary at every byte`, async () => {
      for (let shift = 1; shift <= 6; shift++) {
        const { path, content } = await acrossBoundary(tail, shift)
        const expected = referenceLines(content)
        const result = await readLines(path, { ...unlimited, offset: 2 })
        expect(result.lines).toEqual(expected.slice(1))
        expect(result.totalLines).toBe(expected.length)
      }
    })
  }

  test("random files: every page equals a whole-file split", async () => {
    let seed = 42
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    const pieces = ["word", " ", "é", "日本", "😀", "\t", "\r\n", "\n", "\n", "x".repeat(300)]
    const parts: string[] = []
    let size = 0
    while (size < 2.5 * MiB) {
      const piece = pieces[Math.floor(random() * pieces.length)]!
      parts.push(piece)
      size += Buffer.byteLength(piece)
    }
    const content = Buffer.from(parts.join(""))
    const path = await file(content)
    const expected = referenceLines(content)
    for (let i = 0; i < 12; i++) {
      clearLineIndexCache()
      const offset = 1 + Math.floor(random() * expected.length)
      const limit = 1 + Math.floor(random() * 3000)
      const result = await readLines(path, { ...unlimited, offset, limit })
      expect(result.lines).toEqual(expected.slice(offset - 1, offset - 1 + limit))
      expect(result.totalLines).toBe(expected.length)
      // The same page again, now through the line index.
      const indexed = await readLines(path, { ...unlimited, offset, limit })
      expect(indexed.lines).toEqual(result.lines)
      expect(indexed.more).toBe(offset - 1 + limit < expected.length)
    }
  })
})

describe("readLines: bulk counting (64 KiB blocks)", () => {
  const BLOCK = 64 * 1024

  test("pages that start just before, at and after block boundaries", async () => {
    // Lines of 7 bytes ("nnnnnn\n"): line starts fall on every byte position modulo 7 across blocks.
    const lines = Array.from({ length: 60_000 }, (_, i) => String(i + 1).padStart(6, "0"))
    const content = `${lines.join("\n")}\n`
    const path = await file(content)
    for (const boundary of [BLOCK, 2 * BLOCK, 5 * BLOCK]) {
      const line = Math.floor(boundary / 7) + 1
      for (let offset = line - 2; offset <= line + 2; offset++) {
        clearLineIndexCache()
        const result = await readLines(path, { offset, limit: 3 })
        expect(result.lines).toEqual(lines.slice(offset - 1, offset + 2))
        expect(result.totalLines).toBe(60_000)
      }
    }
  })

  test("a file of nothing but line breaks: counted, indexed and paged", async () => {
    const path = await file("\n".repeat(3 * MiB))
    expect(await countLines(path)).toBe(3 * MiB)
    expect(lineIndexCache.size).toBe(1)
    for (const offset of [1, BLOCK, BLOCK + 1, 1_000_000, 3 * MiB - 1, 3 * MiB]) {
      const result = await readLines(path, { offset, limit: 2 })
      expect(result.lines).toEqual(offset === 3 * MiB ? [""] : ["", ""])
      expect(result.lastLine).toBe(Math.min(3 * MiB, offset + 1))
      expect(result.more).toBe(offset + 1 < 3 * MiB)
    }
  })

  test("one line longer than a block, and CRLF pairs split by a block boundary", async () => {
    const long = "x".repeat(3 * BLOCK + 5)
    const crlf = Array.from({ length: 40_000 }, (_, i) => `r${i}`)
    const content = Buffer.from(`${long}\n${crlf.join("\r\n")}\r\n${long}`)
    const path = await file(content)
    const expected = referenceLines(content)
    for (const offset of [1, 2, 9_000, 20_000, 40_001, 40_002]) {
      clearLineIndexCache()
      const result = await readLines(path, { ...unlimited, offset, limit: 4 })
      expect(result.lines).toEqual(expected.slice(offset - 1, offset + 3))
      expect(result.totalLines).toBe(expected.length)
    }
  })
})

describe("readLines: line index", () => {
  /** 300,000 numbered lines (~3.5 MiB): above the index threshold, with checkpoints every 10,000 lines. */
  const numbered = (count: number) =>
    Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

  test("a full scan indexes the file; later pages seek and agree with a fresh scan", async () => {
    const content = numbered(300_000)
    const path = await file(content)
    expect(await countLines(path)).toBe(300_000)
    expect(lineIndexCache.size).toBe(1)
    for (const offset of [1, 9_999, 10_000, 10_001, 150_000, 298_001, 300_000]) {
      const result = await readLines(path, { offset, limit: 2000 })
      expect(result.lines[0]).toBe(`line ${offset}`)
      expect(result.lastLine).toBe(Math.min(300_000, offset + 1999))
      expect(result.lines.at(-1)).toBe(`line ${result.lastLine}`)
      expect(result.totalLines).toBe(300_000)
      expect(result.more).toBe(result.lastLine < 300_000)
    }
    expect(await readLines(path, { offset: 300_001 })).toMatchObject({
      lines: [],
      totalLines: 300_000,
      more: false,
    })
  })

  test.each([
    ["with", "\n"],
    ["without", ""],
  ])("every offset around the checkpoints and the end, %s a final newline", async (_, last) => {
    const lines = Array.from(
      { length: 25_000 },
      (_, i) => `${String(i + 1).padStart(6, "0")} ${"ü".repeat(i % 40)}`,
    )
    const path = await file(lines.join("\n") + last)
    expect(await countLines(path)).toBe(25_000)
    expect(lineIndexCache.size).toBe(1)
    const around = (n: number) => Array.from({ length: 13 }, (_, i) => n - 6 + i)
    for (const offset of [...around(10_001), ...around(20_001), ...around(24_995), 1, 2]) {
      const result = await readLines(path, { offset, limit: 3 })
      expect(result.lines).toEqual(lines.slice(offset - 1, offset + 2))
      expect(result.more).toBe(offset + 2 < 25_000)
    }
  })

  test("the index keeps the hash of the scan that built it", async () => {
    const content = numbered(200_000)
    const path = await file(content)
    await readLines(path, { hash: true, limit: 1 })
    const again = await readLines(path, { offset: 199_000, hash: true, limit: 1 })
    expect(again.hash).toBe(hashContent(content))
    expect(again.lines).toEqual(["line 199000"])
  })

  test("a changed file is never read through a stale index", async () => {
    const path = await file(numbered(200_000))
    await countLines(path)
    await appendFile(path, "line 200001\n")
    expect(await countLines(path)).toBe(200_001)
    // Same size, different content: the ctime changes, so the index is dropped.
    const content = await readFile(path, "utf8")
    await writeFile(path, content.replace("line 5\n", "line X\n"))
    expect((await readLines(path, { offset: 5, limit: 1 })).lines).toEqual(["line X"])
  })

  test("small files are not indexed", async () => {
    await countLines(await file(numbered(1000)))
    expect(lineIndexCache.size).toBe(0)
  })
})

describe("readLines: UTF-16 files", () => {
  test.each([
    ["utf-16le", (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])],
    [
      "utf-16be",
      (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]),
    ],
  ])("%s with BOM is decoded", async (_, encode) => {
    const path = await file(encode("héllo\r\n😀 wörld\nlast"))
    const result = await readLines(path)
    expect(result.lines).toEqual(["héllo", "😀 wörld", "last"])
    expect(result.totalLines).toBe(3)
    expect(await readLines(path, { offset: 2, limit: 1 })).toMatchObject({ lines: ["😀 wörld"], more: true })
    expect((await readLines(path, { hash: true })).hash).toBe(hashContent(await readFile(path)))
    expect((await readLines(path, { maxLineLength: 3 })).lines[0]).toBe(`hél${lineCutMarker(3)}`)
    expect(await readLastLines(path, 2)).toMatchObject({
      lines: ["😀 wörld", "last"],
      firstLine: 2,
      totalLines: 3,
    })
  })
})

describe("readLastLines", () => {
  test.each([
    ["final newline", "a\nb\nc\nd\n", 2, ["c", "d"]],
    ["no final newline", "a\nb\nc\nd", 2, ["c", "d"]],
    ["CRLF", "a\r\nb\r\nc\r\n", 2, ["b", "c"]],
    ["more asked than there are", "a\nb\n", 5, ["a", "b"]],
    ["empty lines at the end", "a\n\n\n", 2, ["", ""]],
    ["empty file", "", 3, []],
    ["zero lines", "a\nb\n", 0, []],
    ["BOM on the first line", "\uFEFFa\nb\n", 2, ["a", "b"]],
  ])("%s", async (_, content, count, expected) => {
    expect((await readLastLines(await file(content), count)).lines).toEqual(expected)
  })

  test("lines spanning the 64 KiB backward blocks, and long lines cut", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i}:${"é".repeat(i % 200)}`)
    lines.push("x".repeat(100_000))
    const path = await file(`${lines.join("\n")}\n`)
    const result = await readLastLines(path, 2001, { maxLineLength: 50_000 })
    expect(result.lines.slice(0, -1)).toEqual(lines.slice(-2001, -1))
    expect(result.lines.at(-1)).toBe(`${"x".repeat(50_000)}${lineCutMarker(50_000)}`)
    expect(result.cutLines).toBe(1)
    expect(result.firstLine).toBeUndefined()
  })

  test("line numbers come with the index", async () => {
    const path = await file(Array.from({ length: 150_000 }, (_, i) => `row ${i + 1}`).join("\n"))
    await countLines(path)
    const result = await readLastLines(path, 3)
    expect(result).toMatchObject({ lines: ["row 149998", "row 149999", "row 150000"], firstLine: 149_998 })
    expect(result.totalLines).toBe(150_000)
  })
})

describe("readLinesFromBytes: the same page as readLines, from memory", () => {
  const samples: [string, Buffer][] = [
    ["empty", Buffer.alloc(0)],
    ["one line, no newline", Buffer.from("just one")],
    ["LF", Buffer.from("a\nb\nc\n")],
    ["CRLF without a final newline", Buffer.from("a\r\nb\r\nc\r")],
    ["blank lines", Buffer.from("\n\n\nx\n\n")],
    ["UTF-8 BOM", Buffer.from("\uFEFFfirst\nsecond\n")],
    ["UTF-16LE", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\nwörld\nlast", "utf16le")])],
    ["UTF-16BE", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("ab\ncd\n", "utf16le").swap16()])],
    ["a long line", Buffer.from(`short\n${"é".repeat(5000)}\nend\n`)],
    ["multi-byte text", Buffer.from("日本語\n😀 emoji\nünïcödé\n".repeat(300))],
  ]

  const optionSets: ReadLinesOptions[] = [
    {},
    { offset: 2, limit: 2 },
    { offset: 3, limit: 1, hash: true },
    { offset: 1, limit: 5, maxLineLength: 10 },
    { offset: 1, maxBytes: 40 },
    { offset: 500, limit: 10 },
    { offset: 5000 },
  ]

  for (const [name, bytes] of samples) {
    test(name, async () => {
      const path = await file(bytes)
      const version = await stat(path)
      for (const options of optionSets) {
        const fromFile = await readLines(path, options)
        const fromBytes = readLinesFromBytes(bytes, version, options)
        expect(fromBytes).toEqual(fromFile)
      }
    })
  }

  test("random files: every page equals readLines", async () => {
    let seed = 99
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    const pieces = ["word", " ", "é", "日本", "😀", "\t", "\r\n", "\n", "\n", "\r", "x".repeat(2100)]
    for (let round = 0; round < 6; round++) {
      const parts: string[] = []
      for (let size = 0; size < 40_000; ) {
        const piece = pieces[Math.floor(random() * pieces.length)]!
        parts.push(piece)
        size += piece.length
      }
      const bytes = Buffer.from(parts.join(""))
      const path = await file(bytes)
      const version = await stat(path)
      for (let i = 0; i < 8; i++) {
        const options = {
          offset: 1 + Math.floor(random() * 300),
          limit: 1 + Math.floor(random() * 400),
          hash: true,
        }
        expect(readLinesFromBytes(bytes, version, options)).toEqual(await readLines(path, options))
      }
    }
  })
})
