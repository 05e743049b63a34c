import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { Capture, previewOf } from "./capture.ts"
import { SignalScanner } from "./scanner.ts"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-capture-"))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const limits = { maxLines: 10, maxBytes: 200 }

/** Pushes `text` in pieces of `size` bytes, splitting lines and multi-byte characters anywhere. */
function feed(capture: Capture, text: string, size: number): void {
  const bytes = Buffer.from(text)
  for (let at = 0; at < bytes.length; at += size) capture.push(bytes.subarray(at, at + size))
}

describe("Capture", () => {
  it("returns small output whole and writes nothing", async () => {
    const capture = new Capture({ limits, storeDir: dir })
    feed(capture, "one\ntwo\n", 3)
    const result = await capture.finish()
    expect(result).toMatchObject({ text: "one\ntwo\n", truncated: false, totalLines: 2, totalBytes: 8 })
    expect(await readdir(dir)).toEqual([])
  })

  it("keeps the tail, saves every byte, and numbers cut signal lines as in the full output", async () => {
    const capture = new Capture({ limits, storeDir: dir })
    const lines = Array.from({ length: 500 }, (_, i) =>
      i === 3 ? "error: early ✗ failure" : `line ${i + 1} é`,
    )
    const text = `${lines.join("\n")}\n`
    feed(capture, text, 7)
    const result = await capture.finish()
    expect(result.truncated).toBe(true)
    expect(result.text).toBe(lines.slice(-10).join("\n"))
    expect(result.totalLines).toBe(500)
    expect(result.keptLines).toBe(10)
    expect(result.signals).toEqual([{ line: 4, text: "error: early ✗ failure" }])
    expect(await readFile(result.outputPath!, "utf8")).toBe(text)
    expect(await readdir(dir)).toEqual([result.outputPath!.slice(dir.length + 1)])
  })

  it("saves output that is over the line limit but small", async () => {
    const capture = new Capture({ limits, storeDir: dir })
    feed(capture, "a\n".repeat(11), 64)
    const result = await capture.finish()
    expect(result.truncated).toBe(true)
    expect(await readFile(result.outputPath!, "utf8")).toBe("a\n".repeat(11))
  })

  it("removes a spool started for output that ends up within the limits", async () => {
    const capture = new Capture({ limits, storeDir: dir })
    feed(capture, "a\n".repeat(10), 64) // ten lines: the spool starts at the tenth newline
    const result = await capture.finish()
    expect(result.truncated).toBe(false)
    expect(await readdir(dir)).toEqual([])
  })

  it("holds a bounded tail whatever it is fed", () => {
    const capture = new Capture({ limits: { maxLines: 2000, maxBytes: 50_000 }, storeDir: dir })
    for (let i = 0; i < 2000; i++) capture.push(Buffer.alloc(4096, 97))
    expect(capture.tail(1e9).length).toBeLessThanOrEqual(120_000)
    expect(capture.bytes).toBe(2000 * 4096)
  })

  it("still shows the tail when the full output cannot be saved", async () => {
    await writeFile(join(dir, "file"), "")
    const capture = new Capture({ limits, storeDir: join(dir, "file", "store") })
    feed(capture, "x\n".repeat(100), 50)
    const result = await capture.finish()
    expect(result.truncated).toBe(true)
    expect(result.outputPath).toBeUndefined()
    expect(result.saveError).toContain("ENOTDIR")
    expect(result.text).toBe("x\n".repeat(10).slice(0, -1))
  })
})

describe("previewOf", () => {
  it("marks a clipped preview", () => {
    expect(previewOf("abc", 5)).toBe("abc")
    expect(previewOf("abcdefgh", 5)).toBe("...\n\ndefgh")
  })
})

describe("SignalScanner", () => {
  it("finds signals in lines split across pieces and numbers them", () => {
    const scanner = new SignalScanner()
    for (const piece of ["ok\nTypeEr", "ror: boom\nfine\n", "3 passed, 1 fail", "ed\n"]) scanner.push(piece)
    expect(scanner.signals()).toEqual([
      { line: 2, text: "TypeError: boom" },
      { line: 4, text: "3 passed, 1 failed" },
    ])
    expect(scanner.newlines).toBe(4)
  })

  it("starts numbering at firstLine", () => {
    const scanner = new SignalScanner(100)
    scanner.push("a\nerror: x\n")
    expect(scanner.signals()).toEqual([{ line: 101, text: "error: x" }])
  })
})
