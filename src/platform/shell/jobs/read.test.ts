import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { readRegion } from "./read.ts"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-read-"))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const limits = { maxLines: 5, maxBytes: 100 }

describe("readRegion", () => {
  it("returns a small region whole", async () => {
    const path = join(dir, "log")
    await writeFile(path, "one\ntwo\nthree\n")
    const region = await readRegion({ path, start: 4, end: 14, firstLine: 2, limits })
    expect(region).toMatchObject({ text: "two\nthree\n", truncated: false, newlines: 2, totalLines: 2 })
  })

  it("bounds a large region to its tail, with signals numbered from firstLine", async () => {
    const path = join(dir, "log")
    const head = "skip\n"
    const lines = ["ok", "Error: broken thing", ...Array.from({ length: 500 }, (_, i) => `é ${i}`)]
    await writeFile(path, `${head}${lines.join("\n")}\n`)
    const start = Buffer.byteLength(head)
    const end = Buffer.byteLength(head + lines.join("\n") + "\n")
    const region = await readRegion({ path, start, end, firstLine: 2, limits })
    expect(region.truncated).toBe(true)
    expect(region.text).toBe(lines.slice(-5).join("\n"))
    expect(region.signals).toEqual([{ line: 3, text: "Error: broken thing" }])
    expect(region.totalLines).toBe(502)
    expect(region.newlines).toBe(502)
    expect(region.outputPath).toBe(path)
  })

  it("decodes a region whose tail starts inside a multi-byte character without garbage at the seam", async () => {
    const path = join(dir, "log")
    const first = `error: ${"é".repeat(100)}`
    await writeFile(path, `${first}\n${"x\n".repeat(50)}`)
    // The tail window starts 200 bytes from the end: inside an "é" of the first line.
    const region = await readRegion({ path, start: 0, end: 308, firstLine: 1, limits })
    expect(region.signals).toEqual([{ line: 1, text: first }])
    expect(region.text).toBe("x\nx\nx\nx\nx")
  })
})
