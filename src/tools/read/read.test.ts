import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { statSync } from "node:fs"
import { mkdir, open, symlink, truncate, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { crc32, deflateSync } from "node:zlib"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { canonicalPath } from "../../platform/fs/canonical-path.ts"
import { noteFileSystem, settlingMs } from "../../platform/fs/settling.ts"
import type { Events, EventType } from "../../runtime/bus/events.ts"
import { agentRules } from "../../runtime/permission/agents/agent.ts"
import { PermissionEngine } from "../../runtime/permission/engine.ts"
import { MemoryApprovalStore } from "../../runtime/permission/memory-approvals.ts"
import { askOutside, type CallOptions, completed, errorOf, useHarness } from "../kit/fixtures/harness.ts"
import { pageKey, recentPages } from "./page-cache.ts"
import { MAX_MEDIA_BYTES, ReadTool, WHOLE_FILE_BYTES } from "./read.ts"

const h = useHarness({ read: ReadTool }, { sessionID: "ses_read" })

const read = (input: Record<string, unknown>, options?: CallOptions) => h.call("read", input, options)

const lines = (count: number, make: (n: number) => string = (n) => `line ${n}`) =>
  Array.from({ length: count }, (_, index) => make(index + 1)).join("\n")

describe("text files", () => {
  it("shows numbered lines in opencode's format, with the end-of-file footer", async () => {
    const file = h.path("hello.txt")
    await writeFile(file, "first\nsecond\nthird\n")
    const result = completed(await read({ filePath: file }))
    expect(result.output).toBe(
      `<path>${file}</path>\n<type>file</type>\n<content>\n1: first\n2: second\n3: third\n\n(End of file - total 3 lines)\n</content>`,
    )
    expect(result.title).toBe("hello.txt")
    expect(result.metadata).toMatchObject({
      preview: "first\nsecond\nthird",
      truncated: false,
      loaded: [],
      totalLines: 3,
    })
    expect(result.metadata.outputPath).toBeUndefined()
  })

  it("resolves a relative path against the project, and titles it relative to the worktree", async () => {
    await mkdir(h.path("src"))
    await writeFile(h.path("src", "a.ts"), "export const a = 1")
    const result = completed(await read({ filePath: "src/a.ts" }))
    expect(result.output).toContain(`<path>${h.path("src", "a.ts")}</path>`)
    expect(result.output).toContain("1: export const a = 1\n\n(End of file - total 1 lines)")
    expect(result.title).toBe("src/a.ts")
  })

  it("asks `read` with the path relative to the worktree and always *", async () => {
    await mkdir(h.path("src"))
    await writeFile(h.path("src", "a.ts"), "x")
    completed(await read({ filePath: h.path("src", "a.ts") }))
    expect(h.asks).toEqual([
      expect.objectContaining({ permission: "read", patterns: ["src/a.ts"], always: ["*"] }),
    ])
  })

  it("pages with offset and limit, and says how to continue", async () => {
    const file = h.path("many.txt")
    await writeFile(file, lines(10))
    const result = completed(await read({ filePath: file, offset: 3, limit: 4 }))
    expect(result.output).toContain("\n3: line 3\n4: line 4\n5: line 5\n6: line 6\n\n")
    expect(result.output).not.toContain("7: line 7")
    expect(result.output).toContain("(Showing lines 3-6 of 10. Use offset=7 to continue.)\n</content>")
    expect(result.metadata).toMatchObject({
      truncated: true,
      totalLines: 10,
      preview: "line 3\nline 4\nline 5\nline 6",
    })
    const last = completed(await read({ filePath: file, offset: 7 }))
    expect(last.output).toContain(
      "7: line 7\n8: line 8\n9: line 9\n10: line 10\n\n(End of file - total 10 lines)",
    )
    expect(last.metadata.truncated).toBe(false)
  })

  it("treats offset 0 as 1", async () => {
    const file = h.path("a.txt")
    await writeFile(file, "a\nb")
    const result = completed(await read({ filePath: file, offset: 0 }))
    expect(result.output).toContain("<content>\n1: a\n2: b\n\n(End of file - total 2 lines)")
  })

  it("stops at 2000 lines by default", async () => {
    const file = h.path("long.txt")
    await writeFile(file, lines(2500))
    const result = completed(await read({ filePath: file }))
    expect(result.output).toContain(
      "\n2000: line 2000\n\n(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)",
    )
    expect(result.output).not.toContain("2001: line")
    expect(result.metadata.truncated).toBe(true)
    // read bounds itself: the runtime passes the page through whole, with no saved copy.
    expect(result.metadata.outputPath).toBeUndefined()
    expect(result.metadata.preview).toBe(lines(20))
  })

  it("caps a page at 50 KB and says where to continue", async () => {
    const file = h.path("wide.txt")
    await writeFile(
      file,
      lines(1000, (n) => `${n}`.padEnd(100, "x")),
    )
    const result = completed(await read({ filePath: file }))
    const shown = result.output.match(/^\d+: /gm)!.length
    expect(shown).toBeGreaterThan(400)
    expect(shown).toBeLessThan(520)
    expect(result.output).toContain(
      `(Output capped at 50 KB. Showing lines 1-${shown}. Use offset=${shown + 1} to continue.)`,
    )
    const content = result.output.slice(
      result.output.indexOf("<content>\n") + 10,
      result.output.indexOf("\n\n(Output"),
    )
    const raw = content
      .split("\n")
      .map((line) => line.replace(/^\d+: /, ""))
      .join("\n")
    expect(Buffer.byteLength(raw) + 1).toBeLessThanOrEqual(50 * 1024)
    expect(result.metadata.truncated).toBe(true)
  })

  it("cuts lines longer than 2000 characters", async () => {
    const file = h.path("minified.js")
    await writeFile(file, `short\n${"y".repeat(5000)}\nafter`)
    const result = completed(await read({ filePath: file }))
    expect(result.output).toContain(`\n2: ${"y".repeat(2000)}... (line truncated to 2000 chars)\n3: after\n`)
    expect(result.output).toContain("(End of file - total 3 lines)")
  })

  it("rejects an offset past the end, naming the line count", async () => {
    const file = h.path("short.txt")
    await writeFile(file, "a\nb\nc\n")
    expect(errorOf(await read({ filePath: file, offset: 4 }))).toBe(
      "Offset 4 is out of range for this file (3 lines)",
    )
    expect(errorOf(await read({ filePath: file, offset: 100 }))).toBe(
      "Offset 100 is out of range for this file (3 lines)",
    )
  })

  it("reads an empty file at offset 1, and refuses any later offset", async () => {
    const file = h.path("empty.txt")
    await writeFile(file, "")
    const result = completed(await read({ filePath: file }))
    expect(result.output).toBe(
      `<path>${file}</path>\n<type>file</type>\n<content>\n\n\n(End of file - total 0 lines)\n</content>`,
    )
    expect(result.metadata).toMatchObject({ truncated: false, totalLines: 0, preview: "" })
    expect(errorOf(await read({ filePath: file, offset: 2 }))).toBe(
      "Offset 2 is out of range for this file (0 lines)",
    )
  })

  it("drops CRLF line endings and a UTF-8 BOM from what the model sees", async () => {
    const file = h.path("dos.txt")
    await writeFile(file, "\uFEFFone\r\ntwo\r\n")
    const result = completed(await read({ filePath: file }))
    expect(result.output).toContain("<content>\n1: one\n2: two\n\n(End of file - total 2 lines)")
  })

  it("reads a UTF-16 file with its BOM as text", async () => {
    const file = h.path("wide16.txt")
    await writeFile(
      file,
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\nwörld\n", "utf16le")]),
    )
    const result = completed(await read({ filePath: file }))
    expect(result.output).toContain("1: héllo\n2: wörld\n")
  })

  it("records the file's hash in the session's read ledger", async () => {
    const file = h.path("tracked.txt")
    const content = "some content\n"
    await writeFile(file, content)
    completed(await read({ filePath: file, offset: 1, limit: 1 }))
    const entry = h.ledger.get("ses_read", await canonicalPath(file))
    expect(entry?.hash).toBe(createHash("sha256").update(content).digest("hex"))
    expect(entry?.size).toBe(Buffer.byteLength(content))
    expect(h.ledger.get("ses_other", await canonicalPath(file))).toBeUndefined()
  })

  it("reads a .fbs schema as text (an extension is not a media type)", async () => {
    const file = h.path("schema.fbs")
    await writeFile(file, "namespace Game;\ntable Monster { hp: short; }\n")
    const result = completed(await read({ filePath: file }))
    expect(result.output).toContain("1: namespace Game;\n2: table Monster { hp: short; }")
    expect(result.attachments).toEqual([])
  })

  it("reads the last page of a large file, and a later read of it seeks", async () => {
    const file = h.path("big.log")
    const handle = await open(file, "w")
    for (let block = 0; block < 30; block++)
      await handle.write(lines(10_000, (n) => `block ${block} line ${n} ${"z".repeat(40)}`) + "\n")
    await handle.close()
    const first = completed(await read({ filePath: file, offset: 299_501 }))
    expect(first.output).toContain("299501: block 29 line 9501 ")
    expect(first.output).toContain("(End of file - total 300000 lines)")
    const again = completed(await read({ filePath: file, offset: 299_999 }))
    expect(again.output).toContain("299999: block 29 line 9999 ")
    expect(again.output).toContain("300000: block 29 line 10000 ")
    expect(again.metadata.totalLines).toBe(300_000)
  })
})

describe("pages of unchanged files", () => {
  // Files settle some time after their last change (settling.ts); the clock moves on instead of the test waiting.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10_000 })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it("serves a settled file's page again as it was read, stamping the read all the same", async () => {
    const file = h.path("steady.ts")
    await writeFile(file, lines(300))
    const first = completed(await read({ filePath: file, offset: 10, limit: 5 }))
    expect(recentPages.settled(statSync(file), pageKey(file, 10, 5))).toBeDefined()
    const again = completed(await read({ filePath: file, offset: 10, limit: 5 }, { sessionID: "ses_again" }))
    expect([again.output, again.title, again.metadata]).toEqual([first.output, first.title, first.metadata])
    // The second session has read it too: the ledger knows, so it may now edit the file.
    expect(await h.ledger.get("ses_again", await canonicalPath(file))).toMatchObject({
      hash: createHash("sha256").update(lines(300)).digest("hex"),
    })
  })

  it("answers from the page kept for this version of the file, without reading it", async () => {
    const file = h.path("kept.ts")
    await writeFile(file, "on disk\n")
    const page = {
      output: "kept page",
      preview: "kept",
      truncated: false,
      totalLines: 1,
      hash: "h".repeat(64),
    }
    recentPages.set(statSync(file), page, pageKey(file, 1, 2000))
    const result = completed(await read({ filePath: file }))
    expect(result.output).toBe("kept page")
    expect(h.ledger.get("ses_read", await canonicalPath(file))).toMatchObject({ hash: page.hash })
  })

  it("reads the file again once it changed, even to the same size", async () => {
    const file = h.path("changing.ts")
    await writeFile(file, "alpha\n")
    completed(await read({ filePath: file }))
    await writeFile(file, "omega\n")
    expect(completed(await read({ filePath: file })).output).toContain("1: omega")
  })

  it("keeps pages apart by path, offset and limit", async () => {
    const file = h.path("paged.ts")
    await writeFile(file, lines(50))
    expect(completed(await read({ filePath: file, offset: 1, limit: 2 })).output).toContain(
      "1: line 1\n2: line 2\n",
    )
    expect(completed(await read({ filePath: file, offset: 3, limit: 2 })).output).toContain(
      "3: line 3\n4: line 4\n",
    )
    expect(completed(await read({ filePath: file, offset: 1, limit: 3 })).output).toContain(
      "3: line 3\n\n(Showing",
    )
    await symlink(file, h.path("alias.ts"))
    expect(completed(await read({ filePath: h.path("alias.ts"), offset: 1, limit: 2 })).output).toContain(
      `<path>${h.path("alias.ts")}</path>`,
    )
  })

  it("still attaches instruction files a session has not seen to a page served again", async () => {
    await mkdir(h.path("pkg"))
    await writeFile(h.path("pkg", "AGENTS.md"), "pkg rules")
    await writeFile(h.path("pkg", "code.ts"), "code\n")
    expect(completed(await read({ filePath: "pkg/code.ts" })).metadata.loaded).toHaveLength(1)
    const other = completed(await read({ filePath: "pkg/code.ts" }, { sessionID: "ses_fresh" }))
    expect(other.metadata.loaded).toEqual([h.path("pkg", "AGENTS.md")])
    expect(other.output).toContain("pkg rules")
  })

  it("derives the page of new content once for reads started together, each still reading the file", async () => {
    vi.useRealTimers()
    const file = h.path("together.ts")
    await writeFile(file, lines(400))
    const kept = vi.spyOn(recentPages, "set")
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, n) => read({ filePath: file }, { sessionID: `ses_together_${n}` })),
      )
      for (const result of results) expect(completed(result).output).toContain("400: line 400")
      expect(kept.mock.calls.filter(([, , key]) => key === pageKey(file, 1, 2000))).toHaveLength(1)
      // Every session read it: each one's ledger has the stamp.
      for (let n = 0; n < 6; n++)
        expect(await h.ledger.get(`ses_together_${n}`, await canonicalPath(file))).toBeDefined()
    } finally {
      kept.mockRestore()
    }
  })

  it("never serves a page of a file changed within its settling time without reading it again", async () => {
    const file = h.path("fresh.ts")
    await writeFile(file, "new\n")
    const stats = statSync(file)
    // Read 10 ms after the change: within even the short window of a local file system.
    vi.setSystemTime(Math.max(stats.mtimeMs, stats.ctimeMs) + 10)
    completed(await read({ filePath: file }))
    expect(recentPages.settled(statSync(file), pageKey(file, 1, 2000))).toBeUndefined()
  })

  it("serves a page once its file's change has settled (50 ms on a local disk), never past a rewrite", async () => {
    vi.useRealTimers()
    const file = h.path("settles.ts")
    await writeFile(file, "first\n")
    const stats = statSync(file)
    noteFileSystem(file, stats.dev)
    await new Promise((resolve) => setTimeout(resolve, settlingMs(stats) + 30))
    expect(completed(await read({ filePath: file })).output).toContain("first")
    expect(recentPages.settled(statSync(file), pageKey(file, 1, 2000))).toBeDefined()
    // Rewritten in place with as many bytes: its ctime moves past the kept version's, so it is read again.
    await writeFile(file, "other\n")
    expect(completed(await read({ filePath: file })).output).toContain("other")
  })
})

describe("aborts", () => {
  it("an abort while streaming a large file ends the call as interrupted, promptly", async () => {
    const file = h.path("huge.log")
    await writeFile(file, "")
    // Large enough that counting it (at memory speed) takes far longer than the 20 ms before the abort.
    await truncate(file, 4 * 1024 * 1024 * 1024)
    // A sparse file of zero bytes would be binary; make the head look like text.
    const handle = await open(file, "r+")
    await handle.write(Buffer.from(`${"text line\n".repeat(1000)}`), 0, undefined, 0)
    await handle.close()
    const controller = new AbortController()
    const start = performance.now()
    setTimeout(() => controller.abort(), 20)
    const result = await read({ filePath: file, offset: 1, limit: 1 }, { abort: controller.signal })
    const elapsed = performance.now() - start
    expect(result.status).toBe("error")
    expect(result.status === "error" && result.kind).toBe("interrupted")
    expect(elapsed).toBeLessThan(1000)
  })
})

describe("directories", () => {
  beforeEach(async () => {
    await mkdir(h.path("lib"))
    await mkdir(h.path("lib", "zeta"))
    await mkdir(h.path("lib", "alpha"))
    await writeFile(h.path("lib", "b.ts"), "")
    await writeFile(h.path("lib", "a.ts"), "")
    await symlink(h.path("lib", "alpha"), h.path("lib", "link-to-dir"))
    await symlink(h.path("lib", "a.ts"), h.path("lib", "link-to-file"))
  })

  it("lists entries sorted, with a trailing / for directories and links to directories", async () => {
    const dir = h.path("lib")
    const result = completed(await read({ filePath: dir }))
    expect(result.output).toBe(
      [
        `<path>${dir}</path>`,
        "<type>directory</type>",
        "<entries>",
        "a.ts\nalpha/\nb.ts\nlink-to-dir/\nlink-to-file\nzeta/",
        "\n(6 entries)",
        "</entries>",
      ].join("\n"),
    )
    expect(result.title).toBe("lib")
    expect(result.metadata).toMatchObject({ truncated: false, totalEntries: 6 })
  })

  it("pages entries with offset and limit", async () => {
    const dir = h.path("lib")
    const result = completed(await read({ filePath: dir, offset: 2, limit: 3 }))
    expect(result.output).toContain(
      "<entries>\nalpha/\nb.ts\nlink-to-dir/\n\n(Showing 3 of 6 entries. Use 'offset' parameter to read beyond entry 4)\n</entries>",
    )
    expect(result.metadata).toMatchObject({ truncated: true, preview: "alpha/\nb.ts\nlink-to-dir/" })
    const rest = completed(await read({ filePath: dir, offset: 5 }))
    expect(rest.output).toContain("<entries>\nlink-to-file\nzeta/\n\n(6 entries)\n</entries>")
    expect(errorOf(await read({ filePath: dir, offset: 9 }))).toBe(
      "Offset 9 is out of range for this directory (6 entries)",
    )
  })

  it("lists an empty directory", async () => {
    const dir = h.path("lib", "zeta")
    const result = completed(await read({ filePath: dir }))
    expect(result.output).toContain("<entries>\n\n\n(0 entries)\n</entries>")
  })
})

describe("missing files", () => {
  it("says the file was not found, suggesting up to three similar names from its directory", async () => {
    await mkdir(h.path("src"))
    for (const name of ["Config.ts", "config.test.ts", "config.json", "configure.ts", "other.ts"])
      await writeFile(h.path("src", name), "")
    const error = errorOf(await read({ filePath: "src/config" }))
    const missing = h.path("src", "config")
    expect(error).toBe(
      `File not found: ${missing}\n\nDid you mean one of these?\n` +
        [h.path("src", "config.json"), h.path("src", "config.test.ts"), h.path("src", "Config.ts")].join(
          "\n",
        ),
    )
  })

  it("suggests a shorter name the missing one contains", async () => {
    await writeFile(h.path("index.ts"), "")
    const error = errorOf(await read({ filePath: "index.tsx" }))
    expect(error).toBe(
      `File not found: ${h.path("index.tsx")}\n\nDid you mean one of these?\n${h.path("index.ts")}`,
    )
  })

  it("says only that when nothing is similar, or the directory is missing too", async () => {
    expect(errorOf(await read({ filePath: "nothing.md" }))).toBe(`File not found: ${h.path("nothing.md")}`)
    expect(errorOf(await read({ filePath: "no/such/dir/file.md" }))).toBe(
      `File not found: ${h.path("no/such/dir/file.md")}`,
    )
  })
})

describe("binary files", () => {
  it("refuses a file with NUL bytes", async () => {
    const file = h.path("data.raw")
    await writeFile(file, Buffer.from([0x41, 0x42, 0x00, 0x43, 0x0a]))
    expect(errorOf(await read({ filePath: file }))).toBe(`Cannot read binary file: ${file}`)
  })

  it("refuses a file that is mostly control bytes", async () => {
    const file = h.path("noise.txt")
    await writeFile(file, Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 2 ? 0x01 : 0x41))))
    expect(errorOf(await read({ filePath: file }))).toBe(`Cannot read binary file: ${file}`)
  })

  it("refuses a known binary extension whatever it holds", async () => {
    for (const name of ["archive.zip", "lib.so", "Main.class", "module.wasm"]) {
      const file = h.path(name)
      await writeFile(file, "looks like text\n")
      expect(errorOf(await read({ filePath: file }))).toBe(`Cannot read binary file: ${file}`)
    }
  })

  it("reads .bmp, .tiff and .avif names as text when they hold text (they are not attachments)", async () => {
    for (const name of ["notes.bmp", "notes.tiff", "notes.avif"]) {
      const file = h.path(name)
      await writeFile(file, "plain text\n")
      const result = completed(await read({ filePath: file }))
      expect(result.output).toContain("1: plain text")
      expect(result.attachments).toEqual([])
    }
  })

  it("refuses real BMP, TIFF and AVIF bytes as binary", async () => {
    const samples: Record<string, Buffer> = {
      "real.bmp": Buffer.concat([Buffer.from("BM"), Buffer.alloc(52)]),
      "real.tiff": Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00]), Buffer.alloc(20)]),
      "real.avif": Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from("ftypavif"), Buffer.alloc(16)]),
    }
    for (const [name, bytes] of Object.entries(samples)) {
      const file = h.path(name)
      await writeFile(file, bytes)
      expect(errorOf(await read({ filePath: file }))).toBe(`Cannot read binary file: ${file}`)
    }
  })

  it("reads a file whole or streamed alike, on either side of the whole-file size", async () => {
    const line = (n: number) => `line ${n} ${"é".repeat(n % 50)}`
    for (const size of [WHOLE_FILE_BYTES - 1, WHOLE_FILE_BYTES, WHOLE_FILE_BYTES + 1]) {
      const lines: string[] = []
      let bytes = 0
      for (let n = 1; bytes < size; n++) {
        lines.push(line(n))
        bytes += Buffer.byteLength(line(n)) + 1
      }
      const text = `${lines.join("\n")}\n`.slice(0, size)
      const file = h.path(`sized-${size}.txt`)
      await writeFile(file, text)
      const expected = text.split("\n").filter((_, i, all) => i < all.length - 1 || all[i] !== "")
      for (const offset of [1, 1500, expected.length]) {
        const result = completed(await read({ filePath: file, offset, limit: 5 }))
        const shown = expected.slice(offset - 1, offset + 4).map((l, i) => `${offset + i}: ${l}`)
        expect(result.output).toContain(shown.join("\n"))
        expect(result.metadata.totalLines).toBe(expected.length)
      }
      expect(h.ledger.get("ses_read", file)?.hash).toBe(createHash("sha256").update(text).digest("hex"))
    }
  })

  it("refuses what is not a regular file", async () => {
    const fifo = h.path("pipe")
    execFileSync("mkfifo", [fifo])
    expect(errorOf(await read({ filePath: fifo }))).toMatch(/^Cannot read .*pipe: it is not a regular file/)
  })
})

/** A real PNG: signature, IHDR, one IDAT of zlib-compressed scanlines, IEND, with CRCs. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, "ascii"), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // RGB
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x++) row.set([x * 40, y * 40, 200], 1 + x * 3)
    rows.push(row)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ])
}

describe("images and PDFs", () => {
  it("attaches a real PNG as a data: URL", async () => {
    const file = h.path("pixel.png")
    const bytes = png(4, 3)
    await writeFile(file, bytes)
    const result = completed(await read({ filePath: file }))
    expect(result.output).toBe("Image read successfully")
    expect(result.title).toBe("pixel.png")
    // Beside the ids settlement gives every attachment.
    expect(result.attachments).toMatchObject([
      { type: "file", mime: "image/png", url: `data:image/png;base64,${bytes.toString("base64")}` },
    ])
    expect(result.metadata).toMatchObject({ truncated: false })
    expect(h.ledger.get("ses_read", file)?.hash).toBe(createHash("sha256").update(bytes).digest("hex"))
  })

  it("sniffs by magic bytes, whatever the extension says", async () => {
    const samples: [string, Buffer, string][] = [
      ["photo.dat.jpg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]), "image/jpeg"],
      ["anim.gif", Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"), "image/gif"],
      [
        "pic.webp",
        Buffer.concat([Buffer.from("RIFF"), Buffer.from([8, 0, 0, 0]), Buffer.from("WEBPVP8 ")]),
        "image/webp",
      ],
      ["png-without-extension", png(1, 1), "image/png"],
    ]
    for (const [name, bytes, mime] of samples) {
      const file = h.path(name)
      await writeFile(file, bytes)
      const result = completed(await read({ filePath: file }))
      expect(result.output).toBe("Image read successfully")
      expect(result.attachments[0]?.mime).toBe(mime)
    }
  })

  it("attaches a PDF", async () => {
    const file = h.path("doc.pdf")
    const bytes = Buffer.from(
      "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
    )
    await writeFile(file, bytes)
    const result = completed(await read({ filePath: file }))
    expect(result.output).toBe("PDF read successfully")
    expect(result.attachments).toMatchObject([
      {
        type: "file",
        mime: "application/pdf",
        url: `data:application/pdf;base64,${bytes.toString("base64")}`,
      },
    ])
  })

  it("refuses an image over the attachment limit, saying how large it is", async () => {
    const file = h.path("huge.png")
    await writeFile(file, png(1, 1))
    await truncate(file, MAX_MEDIA_BYTES + 2 * 1024 * 1024)
    expect(errorOf(await read({ filePath: file }))).toBe(
      `Cannot read ${file}: the image is 12 MB, over the 10 MB limit for attachments. Give a smaller file (resize or split it first).`,
    )
  })
})

describe("instruction files", () => {
  beforeEach(async () => {
    await writeFile(h.path("AGENTS.md"), "root rules (already in the system prompt)")
    await mkdir(h.path("pkg", "deep"), { recursive: true })
    await writeFile(h.path("pkg", "AGENTS.md"), "pkg rules")
    await writeFile(h.path("pkg", "CLAUDE.md"), "claude rules, shadowed by AGENTS.md")
    await writeFile(h.path("pkg", "deep", "CLAUDE.md"), "deep rules")
    await writeFile(h.path("pkg", "deep", "code.ts"), "const x = 1\n")
    await writeFile(h.path("pkg", "deep", "more.ts"), "const y = 2\n")
  })

  it("attaches AGENTS.md (else CLAUDE.md) between the file and the root, once per session", async () => {
    const result = completed(await read({ filePath: "pkg/deep/code.ts" }))
    const deep = h.path("pkg", "deep", "CLAUDE.md")
    const pkg = h.path("pkg", "AGENTS.md")
    expect(result.output).toBe(
      `<path>${h.path("pkg", "deep", "code.ts")}</path>\n<type>file</type>\n<content>\n1: const x = 1\n\n(End of file - total 1 lines)\n</content>` +
        `\n\n<system-reminder>\nInstructions from: ${deep}\ndeep rules\n\nInstructions from: ${pkg}\npkg rules\n</system-reminder>`,
    )
    expect(result.metadata.loaded).toEqual([deep, pkg])

    const again = completed(await read({ filePath: "pkg/deep/more.ts" }))
    expect(again.output).not.toContain("<system-reminder>")
    expect(again.metadata.loaded).toEqual([])

    const otherSession = completed(await read({ filePath: "pkg/deep/more.ts" }, { sessionID: "ses_other" }))
    expect(otherSession.metadata.loaded).toEqual([deep, pkg])
  })

  it("never attaches the root's own instruction file, nor one for a file at the root", async () => {
    await writeFile(h.path("top.ts"), "top\n")
    const result = completed(await read({ filePath: "top.ts" }))
    expect(result.metadata.loaded).toEqual([])
    expect(result.output).not.toContain("root rules")
  })

  it("does not attach the instruction file being read, and counts it as seen", async () => {
    const result = completed(await read({ filePath: "pkg/AGENTS.md" }))
    expect(result.output).toContain("1: pkg rules")
    expect(result.metadata.loaded).toEqual([])
    const next = completed(await read({ filePath: "pkg/deep/code.ts" }))
    expect(next.metadata.loaded).toEqual([h.path("pkg", "deep", "CLAUDE.md")])
  })

  it("does not spend them on a failed read", async () => {
    errorOf(await read({ filePath: "pkg/deep/code.ts", offset: 50 }))
    const result = completed(await read({ filePath: "pkg/deep/code.ts" }))
    expect(result.metadata.loaded).toHaveLength(2)
  })
})

describe("external_directory", () => {
  it("does not ask for a path inside the project", async () => {
    await writeFile(h.path("in.txt"), "in")
    completed(await read({ filePath: "in.txt" }, { permission: askOutside() }))
    expect(h.asks.map((ask) => ask.permission)).toEqual(["read"])
  })

  it("asks for the parent directory of a file outside the project, before reading", async () => {
    const file = join(h.outside, "secret.txt")
    await writeFile(file, "outside")
    const error = errorOf(await read({ filePath: file }, { permission: askOutside() }))
    expect(error).toBe("The user rejected permission to use this specific tool call.")
    expect(h.asks).toEqual([
      expect.objectContaining({
        permission: "external_directory",
        patterns: [join(h.outside, "*")],
        always: [join(h.outside, "*")],
      }),
    ])
  })

  it("reads a file outside once the ask is approved", async () => {
    const file = join(h.outside, "ok.txt")
    await writeFile(file, "outside ok")
    const result = completed(await read({ filePath: file }, { permission: askOutside(async () => "once") }))
    expect(result.output).toContain("1: outside ok")
    expect(h.asks.map((ask) => ask.permission)).toEqual(["external_directory", "read"])
  })

  it("asks for a directory outside the project itself (kind directory)", async () => {
    await mkdir(join(h.outside, "deep"))
    errorOf(await read({ filePath: join(h.outside, "deep") }, { permission: askOutside() }))
    expect(h.asks[0]?.patterns).toEqual([join(h.outside, "deep", "*")])
  })

  it("asks for a missing file outside the project before saying it is missing", async () => {
    const error = errorOf(
      await read(
        { filePath: join(h.outside, "missing.txt") },
        { permission: askOutside(async () => "once") },
      ),
    )
    expect(error).toBe(`File not found: ${join(h.outside, "missing.txt")}`)
    expect(h.asks[0]?.permission).toBe("external_directory")
  })

  it("asks for a symlink inside the project that points outside", async () => {
    await writeFile(join(h.outside, "target.txt"), "behind a link")
    await symlink(join(h.outside, "target.txt"), h.path("link.txt"))
    errorOf(await read({ filePath: "link.txt" }, { permission: askOutside() }))
    expect(h.asks[0]).toMatchObject({ permission: "external_directory", patterns: [join(h.outside, "*")] })
  })

  it("asks for a relative path that climbs out of the project", async () => {
    await writeFile(join(h.outside, "up.txt"), "up")
    errorOf(await read({ filePath: "../outside/up.txt" }, { permission: askOutside() }))
    expect(h.asks[0]).toMatchObject({ permission: "external_directory", patterns: [join(h.outside, "*")] })
  })
})

describe(".env files with the real permission engine and agent defaults", () => {
  function engine(replies: string[]) {
    const instance: PermissionEngine = new PermissionEngine({
      projectID: h.directory,
      rules: agentRules({
        dataDir: join(h.root, "data"),
        tmpDir: join(h.root, "tmp"),
        directory: h.directory,
      }),
      approvals: new MemoryApprovalStore(),
      publish: <T extends EventType>(type: T, properties: Events[T]) => {
        if (type !== "permission.asked") return
        const asked = properties as Events["permission.asked"]
        replies.push(asked.patterns.join(","))
        queueMicrotask(() => instance.reply({ requestID: asked.id, reply: "reject" }))
      },
    })
    return instance
  }

  const cases: [string, boolean][] = [
    [".env", true],
    [".env.local", true],
    [".env.production", true],
    ["config/.env", true],
    [".env.example", false],
    ["env.ts", false],
  ]
  for (const agent of ["build", "plan"]) {
    for (const [name, asked] of cases) {
      it(`${agent}: ${name} ${asked ? "asks" : "is allowed"}`, async () => {
        await mkdir(h.path("config"), { recursive: true })
        await writeFile(h.path(name), "SECRET=1\n")
        const replies: string[] = []
        const result = await read({ filePath: name }, { permission: engine(replies), agent })
        if (asked) {
          expect(replies).toEqual([name])
          expect(errorOf(result)).toBe("The user rejected permission to use this specific tool call.")
        } else {
          expect(replies).toEqual([])
          expect(completed(result).output).toContain("1: SECRET=1")
        }
      })
    }
  }
})
