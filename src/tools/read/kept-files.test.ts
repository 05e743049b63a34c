import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { SETTLED_MS } from "../../platform/fs/version-cache.ts"
import { closeKeptFiles, keptFiles, MAX_KEPT_FILES, readKept } from "./kept-files.ts"

const MAX = 1024

/** Waits (on the event loop, not timers) until `done`: kept files are closed off the thread. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve))
  expect(done()).toBe(true)
}
const into = Buffer.alloc(MAX + 1)

/** The paths this process has open (Linux). */
function openPaths(): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)]
    } catch {
      return []
    }
  })
}

describe.skipIf(process.platform === "win32")("readKept", () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "toolbelt-kept-"))
  })
  afterEach(() => {
    closeKeptFiles()
    vi.useRealTimers()
  })
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  const read = (path: string, now?: number) =>
    readKept(path, statSync(path), MAX, into, now)?.bytes.toString()

  it("keeps a file written moments ago open, and reads each new content of it there", () => {
    const file = join(dir, "fresh.txt")
    writeFileSync(file, "first\n")
    expect(read(file)).toBe("first\n")
    expect(keptFiles()).toBe(1)
    // Rewritten in place (same inode, longer, then shorter): the kept descriptor shows the file as it is.
    writeFileSync(file, "second, longer\n")
    expect(read(file)).toBe("second, longer\n")
    writeFileSync(file, "3\n")
    expect(read(file)).toBe("3\n")
    expect(keptFiles()).toBe(1)
  })

  it("reads a file replaced by a rename from the new file, never the old one kept open", async () => {
    const file = join(dir, "replaced.txt")
    writeFileSync(file, "old\n")
    expect(read(file)).toBe("old\n")
    writeFileSync(`${file}.tmp`, "new\n")
    renameSync(`${file}.tmp`, file)
    expect(read(file)).toBe("new\n")
    // The old file's descriptor was closed, the new one kept.
    expect(keptFiles()).toBe(1)
    if (process.platform === "linux")
      await until(() => !openPaths().some((path) => path.includes("(deleted)")))
  })

  it("keeps nothing open for a file whose change has settled", () => {
    const file = join(dir, "settled.txt")
    writeFileSync(file, "settled\n")
    expect(read(file, Date.now() + SETTLED_MS + 1000)).toBe("settled\n")
    expect(keptFiles()).toBe(0)
  })

  it("declines what is not a regular file of at most the limit, keeping nothing open", () => {
    const big = join(dir, "big.txt")
    writeFileSync(big, "x".repeat(MAX + 1))
    expect(read(big)).toBeUndefined()
    expect(read(dir)).toBeUndefined()
    const fifo = join(dir, "pipe")
    execFileSync("mkfifo", [fifo])
    expect(read(fifo)).toBeUndefined()
    expect(keptFiles()).toBe(0)
    // A kept file grown past the limit is declined too.
    const grows = join(dir, "grows.txt")
    writeFileSync(grows, "small\n")
    expect(read(grows)).toBe("small\n")
    writeFileSync(grows, "y".repeat(MAX + 1))
    expect(read(grows)).toBeUndefined()
  })

  it.runIf(process.platform === "linux")(
    `keeps at most ${MAX_KEPT_FILES} files open, closing the least recently read`,
    async () => {
      const files = Array.from({ length: MAX_KEPT_FILES + 2 }, (_, n) => join(dir, `many${n}.txt`))
      for (const [n, file] of files.entries()) {
        writeFileSync(file, `file ${n}\n`)
        expect(read(file)).toBe(`file ${n}\n`)
      }
      expect(keptFiles()).toBe(MAX_KEPT_FILES)
      await until(() => !openPaths().includes(files[0]!) && !openPaths().includes(files[1]!))
      const open = openPaths()
      expect(files.filter((file) => open.includes(file))).toEqual(files.slice(2))
    },
  )

  it.runIf(process.platform === "linux")("closes a kept file once its change has settled", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })
    const file = join(dir, "closes.txt")
    writeFileSync(file, "soon settled\n")
    expect(read(file)).toBe("soon settled\n")
    expect(openPaths()).toContain(file)
    vi.advanceTimersByTime(SETTLED_MS + 500)
    expect(keptFiles()).toBe(0)
    await until(() => !openPaths().includes(file))
  })
})
