import { statSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FINE_SETTLED_MS, hasSettled, noteFileSystem, SETTLED_MS, settlingMs } from "./settling.ts"

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-settling-"))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A file just written in the temp dir, its stat, and the window its times call for there. */
async function freshFile(name: string) {
  const file = join(dir, name)
  await writeFile(file, "x")
  const stats = statSync(file)
  const fine = stats.ctimeMs % 1000 !== 0 || stats.mtimeMs % 1000 !== 0
  return { file, stats, window: fine ? FINE_SETTLED_MS : SETTLED_MS }
}

const version = (dev: number, changed: number) => ({
  dev,
  ino: 1,
  size: 1,
  mtimeMs: changed,
  ctimeMs: changed,
})

describe("settlingMs", () => {
  it("is the wide window for a device never seen", () => {
    expect(settlingMs(version(987_654_321, 1_000_000.5))).toBe(SETTLED_MS)
  })

  it.runIf(process.platform === "linux")(
    "is FINE_SETTLED_MS for a file with sub-second times on the local file system of the temp dir",
    async () => {
      const { file, stats, window } = await freshFile("fine.txt")
      noteFileSystem(file, stats.dev)
      // The machines this runs on keep their temp dirs on ext4, XFS, Btrfs, tmpfs or overlayfs.
      expect(settlingMs(stats)).toBe(window)
      const changed = Math.max(stats.mtimeMs, stats.ctimeMs)
      expect(hasSettled(stats, changed + settlingMs(stats) - 1)).toBe(false)
      expect(hasSettled(stats, changed + settlingMs(stats))).toBe(true)
    },
  )

  it.runIf(process.platform === "linux")(
    "is the wide window, on a local file system, for times in whole seconds (a coarse one keeps no more)",
    () => {
      const { dev } = statSync(dir)
      noteFileSystem(dir, dev)
      expect(settlingMs(version(dev, 1_796_000_000_000))).toBe(SETTLED_MS)
    },
  )

  it.runIf(process.platform === "linux")(
    "is the wide window on a file system that is not a local disk's (procfs here)",
    () => {
      const stats = statSync("/proc/self/stat")
      noteFileSystem("/proc/self/stat", stats.dev)
      expect(settlingMs(version(stats.dev, 1_796_000_000_000.25))).toBe(SETTLED_MS)
    },
  )

  it.runIf(process.platform === "linux")(
    "asks a device again after a minute (its number may now be another file system's)",
    async () => {
      const { file, stats, window } = await freshFile("reused.txt")
      const reused = 123_456_789
      const now = Date.now()
      noteFileSystem("/proc/self/stat", reused, now)
      const changed = { ...stats, dev: reused }
      expect(settlingMs(changed)).toBe(SETTLED_MS)
      noteFileSystem(file, reused, now + 1000)
      expect(settlingMs(changed)).toBe(SETTLED_MS)
      noteFileSystem(file, reused, now + 61_000)
      expect(settlingMs(changed)).toBe(window)
    },
  )
})
