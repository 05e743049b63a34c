import { execFileSync } from "node:child_process"
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readSmallFileSync, relativePath, resolvePath } from "./paths.ts"

describe("resolvePath", () => {
  it.each([
    ["a/b.ts", "/p/a/b.ts"],
    ["./a/../b.ts", "/p/b.ts"],
    ["/elsewhere/c.ts", "/elsewhere/c.ts"],
    ["/elsewhere/./d/../c.ts", "/elsewhere/c.ts"],
    ["../up.ts", "/up.ts"],
  ])("%s → %s", (path, expected) => {
    expect(resolvePath("/p", path)).toBe(expected)
  })
})

describe("relativePath", () => {
  it.each([
    [join("/w", "src", "a.ts"), "src/a.ts"],
    ["/w", "."],
    [join("/outside", "x.ts"), "../outside/x.ts"],
  ])("%s → %s", (path, expected) => {
    expect(relativePath("/w", path)).toBe(expected)
  })
})

describe("readSmallFileSync", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolbelt-paths-"))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("reads a regular file whole, with the stat of the version read", async () => {
    const file = join(dir, "a.txt")
    await writeFile(file, "hello\n")
    const result = readSmallFileSync(file, 100)
    expect(result?.bytes.toString()).toBe("hello\n")
    expect(result?.stats.size).toBe(6)
    expect(result?.stats.ino).toBe((await stat(file)).ino)
  })

  it("declines a file over the limit, and what is not a regular file, without blocking on a FIFO", async () => {
    const file = join(dir, "big.txt")
    await writeFile(file, "x".repeat(101))
    expect(readSmallFileSync(file, 100)).toBeUndefined()
    const fifo = join(dir, "pipe")
    execFileSync("mkfifo", [fifo])
    // A blocking open of a FIFO with no writer would hang this test forever.
    expect(readSmallFileSync(fifo, 100)).toBeUndefined()
    expect(readSmallFileSync(dir, 100)).toBeUndefined()
  })

  it("reads into a given buffer, as a view of it, to the end of the file; a file over the limit is declined", async () => {
    const into = Buffer.alloc(101, 0x2a)
    const file = join(dir, "into.txt")
    await writeFile(file, "first content\n")
    const first = readSmallFileSync(file, 100, into)
    expect(first?.bytes.toString()).toBe("first content\n")
    expect(first?.bytes.buffer).toBe(into.buffer)
    // Read again into the same buffer: the view shows the new bytes, and only them.
    await writeFile(file, "two\n")
    expect(readSmallFileSync(file, 100, into)?.bytes.toString()).toBe("two\n")
    await writeFile(file, "")
    expect(readSmallFileSync(file, 100, into)?.bytes.length).toBe(0)
    await writeFile(file, "y".repeat(100))
    expect(readSmallFileSync(file, 100, into)?.bytes.toString()).toBe("y".repeat(100))
    await writeFile(file, "y".repeat(101))
    expect(readSmallFileSync(file, 100, into)).toBeUndefined()
  })

  it.runIf(process.platform === "linux")(
    "reads to the end when the stat's size is not the file's (a /proc file states 0 bytes)",
    () => {
      const into = Buffer.alloc(64 * 1024)
      const status = readSmallFileSync("/proc/self/status", 64 * 1024 - 1, into)
      expect(status?.stats.size).toBe(0)
      expect(status?.bytes.toString()).toMatch(/^Name:[\s\S]*\nPid:/)
    },
  )

  it("throws for a missing file, as the callers expect", () => {
    expect(() => readSmallFileSync(join(dir, "missing"), 100)).toThrow(/ENOENT/)
  })
})
