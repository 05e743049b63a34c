import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, isAbsolute, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { newOutputId } from "../../platform/fs/output-id.ts"
import { OutputStore } from "./store.ts"

const DAY = 24 * 60 * 60 * 1000
let root: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-store-"))
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe("OutputStore.write", () => {
  it("creates the store and saves the exact text under a tool_ name", async () => {
    const store = new OutputStore({ dir: join(root, "data", "tool-output") })
    const text = "héllo\n😀 wörld\r\n\u0000end"
    const path = await store.write(text)
    expect(isAbsolute(path)).toBe(true)
    expect(basename(path)).toMatch(/^tool_[0-9a-f]{12}[0-9A-Za-z]{14}$/)
    expect((await readFile(path)).equals(Buffer.from(text))).toBe(true)
    expect(await readdir(store.dir)).toEqual([basename(path)])
  })

  it("keeps the store private to the user", async () => {
    const store = new OutputStore({ dir: join(root, "tool-output") })
    const path = await store.write("secret")
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
  })

  it("writes output larger than one slice without breaking characters at slice edges", async () => {
    const slice = 1 << 20
    // Emoji straddle the first and second slice boundaries; multi-byte text fills the rest.
    const text = `${"a".repeat(slice - 1)}😀${"é日".repeat(slice / 2 - 1)}b😀${"c".repeat(300_000)}`
    const path = await new OutputStore({ dir: root }).write(text)
    expect((await readFile(path)).equals(Buffer.from(text))).toBe(true)
  })

  it("writes an empty output", async () => {
    const path = await new OutputStore({ dir: root }).write("")
    expect(await readFile(path, "utf8")).toBe("")
  })

  it("rejects with the reason when the store cannot be created, leaving nothing behind", async () => {
    await writeFile(join(root, "blocker"), "a regular file")
    const store = new OutputStore({ dir: join(root, "blocker", "tool-output") })
    await expect(store.write("text")).rejects.toThrow(
      /full tool output could not be saved to .*blocker.*: a file is in the way of the directory .*TOOLBELT_DATA_DIR/,
    )
    expect(await readdir(root)).toEqual(["blocker"])
  })
})

describe("OutputStore.sweep", () => {
  it("removes outputs older than 7 days by the time in their name, keeping younger ones and other files", async () => {
    const store = new OutputStore({ dir: root })
    const now = Date.now()
    const old = join(root, `tool_${newOutputId(now - 10 * DAY)}`)
    const young = join(root, `tool_${newOutputId(now - 3 * DAY)}`)
    const notes = join(root, "notes.txt")
    for (const path of [old, young, notes]) await writeFile(path, "x")
    // A fresh mtime must not save a file whose name says it is old.
    await utimes(notes, (now - 30 * DAY) / 1000, (now - 30 * DAY) / 1000)
    expect(await store.sweep({ now })).toEqual([old])
    expect((await readdir(root)).sort()).toEqual([basename(young), "notes.txt"].sort())
  })

  it("falls back to the modification time for tool_ entries whose name does not parse", async () => {
    const store = new OutputStore({ dir: root })
    const now = Date.now()
    const stale = join(root, "tool_hand_made")
    const fresh = join(root, "tool_also_hand_made")
    const staleDir = join(root, "tool_a_directory")
    await writeFile(stale, "x")
    await writeFile(fresh, "x")
    await mkdir(staleDir)
    await writeFile(join(staleDir, "inside"), "x")
    for (const path of [stale, staleDir]) await utimes(path, (now - 8 * DAY) / 1000, (now - 8 * DAY) / 1000)
    expect((await store.sweep({ now })).sort()).toEqual([staleDir, stale].sort())
    expect(await readdir(root)).toEqual(["tool_also_hand_made"])
  })

  it("honours a custom maximum age", async () => {
    const store = new OutputStore({ dir: root })
    const now = Date.now()
    const hourOld = join(root, `tool_${newOutputId(now - 2 * 60 * 60 * 1000)}`)
    await writeFile(hourOld, "x")
    expect(await store.sweep({ now, maxAgeMs: 3 * 60 * 60 * 1000 })).toEqual([])
    expect(await store.sweep({ now, maxAgeMs: 60 * 60 * 1000 })).toEqual([hourOld])
  })

  it("treats a store that does not exist yet as empty", async () => {
    expect(await new OutputStore({ dir: join(root, "never-created") }).sweep()).toEqual([])
  })

  it("says what went wrong when the store cannot be listed", async () => {
    await writeFile(join(root, "file"), "x")
    await expect(new OutputStore({ dir: join(root, "file") }).sweep()).rejects.toThrow(
      /Could not list the output store/,
    )
  })
})

describe("OutputStore.startSweeper", () => {
  it("sweeps after the first delay and then on every interval until stopped", async () => {
    const store = new OutputStore({ dir: root })
    const first = join(root, `tool_${newOutputId(Date.now() - 10 * DAY)}`)
    await writeFile(first, "x")
    const sweeper = store.startSweeper({ firstDelayMs: 10, intervalMs: 20 })
    try {
      await waitFor(async () => !(await exists(first)))
      const second = join(root, `tool_${newOutputId(Date.now() - 10 * DAY)}`)
      await writeFile(second, "x")
      await waitFor(async () => !(await exists(second)))
    } finally {
      sweeper.stop()
    }
    const third = join(root, `tool_${newOutputId(Date.now() - 10 * DAY)}`)
    await writeFile(third, "x")
    await new Promise((done) => setTimeout(done, 100))
    expect(await exists(third)).toBe(true)
  })

  it("logs a failed sweep instead of throwing from the timer", async () => {
    await writeFile(join(root, "file"), "x")
    const messages: string[] = []
    const sweeper = new OutputStore({ dir: join(root, "file") }).startSweeper({
      firstDelayMs: 1,
      intervalMs: 1000,
      log: (message) => messages.push(message),
    })
    try {
      await waitFor(async () => messages.length > 0)
    } finally {
      sweeper.stop()
    }
    expect(messages[0]).toMatch(/sweeping old tool output failed: Could not list the output store/)
  })

  it("never runs when stopped before the first delay", async () => {
    const old = join(root, `tool_${newOutputId(Date.now() - 10 * DAY)}`)
    await writeFile(old, "x")
    new OutputStore({ dir: root }).startSweeper({ firstDelayMs: 20 }).stop()
    await new Promise((done) => setTimeout(done, 80))
    expect(await exists(old)).toBe(true)
  })
})

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the sweeper")
    await new Promise((done) => setTimeout(done, 5))
  }
}
