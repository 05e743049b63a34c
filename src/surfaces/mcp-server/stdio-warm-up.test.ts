import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { warmUpStdio } from "./stdio-warm-up.ts"

// The warm-up makes its temp dir under os.tmpdir(), which reads TMPDIR at each call: a dir of this test's.
let temp: string
let saved: string | undefined
beforeEach(() => {
  saved = process.env.TMPDIR
  temp = mkdtempSync(join(tmpdir(), "toolbelt-warm-up-test-"))
  process.env.TMPDIR = temp
})
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = saved
  rmSync(temp, { recursive: true, force: true })
})

describe("warmUpStdio", () => {
  it("answers reads through the stdio server on a throwaway toolbelt, then removes everything it made", async () => {
    // More than the 77 windows it cycles through: the loop guard never stops it.
    const report = await warmUpStdio({ calls: 200, budgetMs: 60_000 })
    expect(report.failed).toBeUndefined()
    expect(report.calls).toBe(200)
    expect(readdirSync(temp)).toEqual([])
  })

  it("stops when its signal is aborted, and still cleans up", async () => {
    const stop = new AbortController()
    const running = warmUpStdio({ calls: 100_000, budgetMs: 60_000, signal: stop.signal })
    setTimeout(() => stop.abort(), 300)
    const report = await running
    expect(report.failed).toBeUndefined()
    expect(report.calls).toBeGreaterThan(0)
    expect(report.calls).toBeLessThan(100_000)
    expect(readdirSync(temp)).toEqual([])
  })

  it("stops at its time budget", async () => {
    const report = await warmUpStdio({ calls: 100_000, budgetMs: 200 })
    expect(report.calls).toBeLessThan(100_000)
    expect(readdirSync(temp)).toEqual([])
  })
})
