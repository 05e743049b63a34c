import { mkdtemp, readdir, readFile, realpath, rm, stat, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { lineIndexCache } from "./line-index.ts"
import { LineIndexFolder, MAX_SAVED_INDEXES } from "./line-index-file.ts"
import { readLastLines } from "./read-last-lines.ts"
import { clearLineIndexCache, readLines } from "./read-lines.ts"

const MiB = 1024 * 1024
let dir: string
let folder: LineIndexFolder

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-saved-index-")))
  // Real files of a few MiB stand in for the large ones (the production minimum is 32 MiB).
  folder = new LineIndexFolder(join(dir, "data", "line-index"), { minBytes: MiB })
  clearLineIndexCache()
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** `count` numbered lines of ~12 bytes. */
async function numbered(name: string, count: number): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, `${Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n")}\n`)
  return path
}

const saved = async () => readdir(folder.dir).catch(() => [] as string[])

describe("LineIndexFolder", () => {
  test("a full scan saves the index; a new process (empty memory cache) seeks with it", async () => {
    const path = await numbered("big.log", 300_000)
    const first = await readLines(path, { limit: 1, savedIndexes: folder })
    expect(first.totalLines).toBe(300_000)
    const { ino, dev } = await stat(path)
    expect(await saved()).toEqual([`${dev}-${ino}.json`])

    clearLineIndexCache()
    const loaded = await folder.load(await stat(path))
    expect(loaded?.totalLines).toBe(300_000)
    // The page is found through the saved index: right lines, the total known without a scan.
    clearLineIndexCache()
    const page = await readLines(path, {
      offset: 299_001,
      limit: 1000,
      maxBytes: Infinity,
      savedIndexes: folder,
    })
    expect(page.lines[0]).toBe("line 299001")
    expect(page.lines.at(-1)).toBe("line 300000")
    expect(page).toMatchObject({ totalLines: 300_000, more: false })
    expect(lineIndexCache.size).toBe(1)
    clearLineIndexCache()
    const last = await readLastLines(path, 3, { savedIndexes: folder })
    expect(last).toMatchObject({ lines: ["line 299998", "line 299999", "line 300000"], firstLine: 299_998 })
  })

  test("small files are not saved", async () => {
    const path = await numbered("small.log", 1000)
    await readLines(path, { savedIndexes: folder })
    expect(await saved()).toEqual([])
  })

  test("a changed file is never read through its old saved index, which is removed", async () => {
    const path = await numbered("big.log", 200_000)
    await readLines(path, { limit: 1, savedIndexes: folder })
    const before = await stat(path)
    // Same size, same mtime, different lines: only the ctime tells.
    const text = await readFile(path, "utf8")
    await writeFile(path, text.replace("line 150000\n", "LINE 150000\n"))
    await utimes(path, before.atimeMs / 1000, before.mtimeMs / 1000)
    clearLineIndexCache()
    expect(await folder.load(await stat(path))).toBeUndefined()
    expect(await saved()).toEqual([])
    const page = await readLines(path, { offset: 150_000, limit: 1, savedIndexes: folder })
    expect(page.lines).toEqual(["LINE 150000"])
  })

  test("a torn or tampered saved index is ignored", async () => {
    const path = await numbered("big.log", 200_000)
    await readLines(path, { limit: 1, savedIndexes: folder })
    const [name] = await saved()
    const file = join(folder.dir, name!)
    const good = JSON.parse(await readFile(file, "utf8"))
    const stats = await stat(path)

    await writeFile(file, JSON.stringify(good).slice(0, 100))
    expect(await folder.load(stats)).toBeUndefined()
    for (const bad of [
      { ...good, lines: [...good.lines].reverse() },
      { ...good, bytes: good.bytes.slice(1) },
      { ...good, bytes: good.bytes.map((byte: number) => byte + stats.size) },
      { ...good, format: 99 },
      { ...good, totalLines: "many" },
    ]) {
      await writeFile(file, JSON.stringify(bad))
      expect(await folder.load(stats)).toBeUndefined()
    }
    await writeFile(file, JSON.stringify(good))
    expect((await folder.load(stats))?.totalLines).toBe(200_000)
  })

  test(`keeps the newest ${MAX_SAVED_INDEXES} indexes`, async () => {
    const path = await numbered("big.log", 200_000)
    await readLines(path, { limit: 1, savedIndexes: folder })
    const [name] = await saved()
    const template = await readFile(join(folder.dir, name!), "utf8")
    // Older entries of other files, then one more save.
    for (let i = 0; i < MAX_SAVED_INDEXES + 5; i++) {
      const other = join(folder.dir, `1-${i}.json`)
      await writeFile(other, template)
      await utimes(other, 1000 + i, 1000 + i)
    }
    clearLineIndexCache()
    await rm(join(folder.dir, name!))
    await readLines(path, { limit: 1, savedIndexes: folder })
    const left = await saved()
    expect(left).toHaveLength(MAX_SAVED_INDEXES)
    expect(left).toContain(name)
    expect(left).not.toContain("1-0.json")
  })

  test("a folder that cannot be created costs the read nothing", async () => {
    const path = await numbered("big.log", 200_000)
    await writeFile(join(dir, "blocked"), "a file where the folder would go")
    const blocked = new LineIndexFolder(join(dir, "blocked", "line-index"), { minBytes: MiB })
    const page = await readLines(path, { offset: 5, limit: 1, savedIndexes: blocked })
    expect(page).toMatchObject({ lines: ["line 5"], totalLines: 200_000 })
  })
})
