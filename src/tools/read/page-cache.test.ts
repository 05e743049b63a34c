import { statSync, utimesSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { afterEach, describe, expect, it, vi } from "vitest"
import { SETTLED_MS } from "../../platform/fs/version-cache.ts"
import { completed, useHarness } from "../kit/fixtures/harness.ts"
import { KEPT_BYTES, PageCache, pageKey, recentPages, type TextPage } from "./page-cache.ts"
import { ReadTool } from "./read.ts"

const h = useHarness({ read: ReadTool }, { sessionID: "ses_pages" })
const read = (filePath: string) => h.call("read", { filePath })

const page = (output: string): TextPage => ({
  output,
  preview: output,
  truncated: false,
  totalLines: 1,
  hash: "h",
})
const version = (ctimeMs: number, size = 4) => ({ dev: 1, ino: 2, size, mtimeMs: ctimeMs, ctimeMs })

afterEach(() => {
  vi.useRealTimers()
})

describe("PageCache", () => {
  it("serves a settled version without its bytes, and an unsettled one only for equal bytes", () => {
    const cache = new PageCache(4)
    const now = 1_000_000
    cache.set(version(now - SETTLED_MS), page("old"), "a", { bytes: Buffer.from("old\n"), now })
    expect(cache.settled(version(now - SETTLED_MS), "a")?.output).toBe("old")
    cache.set(version(now - 1), page("new"), "b", { bytes: Buffer.from("new\n"), now })
    // The same version seen much later is still not enough: a write in the same tick looks the same.
    expect(cache.settled(version(now - 1), "b")).toBeUndefined()
    expect(cache.same(Buffer.from("NEW\n"), version(now - 1), "b", now + 10_000)).toBeUndefined()
    expect(cache.same(Buffer.from("new\n"), version(now - 1), "b", now)?.output).toBe("new")
    // Equal bytes read once the version settled: that version is now known without a read.
    expect(cache.same(Buffer.from("new\n"), version(now - 1), "b", now + SETTLED_MS)?.output).toBe("new")
    expect(cache.settled(version(now - 1), "b")?.output).toBe("new")
  })

  it("keeps no unsettled page it could not check, and drops the least recently used first", () => {
    const cache = new PageCache(2)
    const now = 1_000_000
    cache.set(version(now), page("no bytes"), "a", { now })
    cache.set(version(now, KEPT_BYTES + 1), page("too big"), "b", {
      bytes: Buffer.alloc(KEPT_BYTES + 1),
      now,
    })
    expect(cache.size).toBe(0)
    const old = version(now - SETTLED_MS)
    for (const key of ["x", "y"]) cache.set(old, page(key), key, { now })
    cache.settled(old, "x")
    cache.set(old, page("z"), "z", { now })
    expect(
      [cache.settled(old, "x"), cache.settled(old, "y"), cache.settled(old, "z")].map((p) => p?.output),
    ).toEqual(["x", undefined, "z"])
  })
})

describe("read of a file written moments ago", () => {
  it("serves the kept page again when the file's bytes are the same", async () => {
    const file = h.path("just-written.ts")
    await writeFile(file, "same bytes\n")
    const stats = statSync(file)
    recentPages.set(stats, page("kept page"), pageKey(file, 1, 2000), { bytes: Buffer.from("same bytes\n") })
    expect(completed(await read(file)).output).toBe("kept page")
  })

  it("never serves a page of other bytes, even when the file's version is the one it was kept for", async () => {
    // What a write in the same clock tick leaves: the same size and times, other bytes. The page was
    // kept when that version was new; seen again much later, it must still be checked against the bytes.
    const file = h.path("same-tick.ts")
    await writeFile(file, "omega\n")
    const stats = statSync(file)
    recentPages.set(stats, page("stale alpha page"), pageKey(file, 1, 2000), {
      bytes: Buffer.from("alpha\n"),
      now: stats.ctimeMs + 1,
    })
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * SETTLED_MS })
    const result = completed(await read(file))
    expect(result.output).toContain("1: omega")
    expect(result.output).not.toContain("stale")
  })

  it("shows every rewrite of a file read between writes, same size and same times included", async () => {
    const file = h.path("rewritten.ts")
    for (let n = 0; n < 50; n++) {
      const text = `version ${n % 10}${"x".repeat(30)}\n`
      await writeFile(file, text)
      // Half the time the times are put back as they were: only the bytes tell the versions apart.
      if (n % 2 === 1) utimesSync(file, new Date(1_700_000_000_000), new Date(1_700_000_000_000))
      expect(completed(await read(file)).output).toContain(`1: version ${n % 10}x`)
    }
  })
})
