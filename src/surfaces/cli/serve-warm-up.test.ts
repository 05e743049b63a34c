import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { warmUp } from "./serve-warm-up.ts"

// The warm-up makes its temp directory under os.tmpdir(), which follows TMPDIR: each test gets its own,
// and a HOME of its own, to see what is left in them afterwards.
let temp: string
let home: string
const saved = { TMPDIR: process.env.TMPDIR, HOME: process.env.HOME }
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), "warm-up-test-tmp-"))
  home = await mkdtemp(join(tmpdir(), "warm-up-test-home-"))
  process.env.TMPDIR = temp
  process.env.HOME = home
})
afterEach(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  await rm(temp, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

describe("serve's warm-up", () => {
  it("answers its read calls through a real server, then leaves nothing behind", async () => {
    const report = await warmUp({ calls: 40 })
    expect(report.failed).toBeUndefined()
    expect(report.calls).toBe(40)
    // Its directory (project, data dir, socket) is gone, and nothing was written in the user's home.
    expect(await readdir(temp)).toEqual([])
    expect(await readdir(home)).toEqual([])
  })

  it("stops making calls when its time is up", async () => {
    const report = await warmUp({ calls: 1_000_000, budgetMs: 150 })
    expect(report.failed).toBeUndefined()
    expect(report.calls).toBeGreaterThan(0)
    expect(report.calls).toBeLessThan(1_000_000)
    expect(await readdir(temp)).toEqual([])
  })

  it("where a socket's path would be too long, serves on loopback instead, and cleans up", async () => {
    // Unix socket paths hold at most ~104-108 bytes.
    const deep = join(temp, "d".repeat(60), "e".repeat(60))
    await mkdir(deep, { recursive: true })
    process.env.TMPDIR = deep
    const report = await warmUp({ calls: 10 })
    expect(report.failed).toBeUndefined()
    expect(report.calls).toBe(10)
    expect(await readdir(deep)).toEqual([])
  })

  it("a failure is reported, not thrown: the server then starts cold", async () => {
    process.env.TMPDIR = join(temp, "missing", "dir")
    const report = await warmUp({ calls: 10 })
    expect(report.calls).toBe(0)
    expect(report.failed).toMatch(/ENOENT/)
  })
})
