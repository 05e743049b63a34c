import { spawnSync } from "node:child_process"
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { afterEach, beforeEach, expect, it } from "vitest"
import { CACHE_FILE, MAX_CACHED, RECENT_CHARS, TokenCounter, textKey } from "./count.ts"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-tokens-"))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const texts = [
  "",
  "hello world",
  JSON.stringify({ name: "read", description: "Reads a file.", input_schema: { type: "object" } }),
  "创建一个新的问题 with mixed scripts and emoji 🚀",
  "x".repeat(5000),
]

it("counts exactly what gpt-tokenizer's o200k_base counts", async () => {
  const counts = await new TokenCounter().count(texts)
  expect(counts).toEqual(texts.map((text) => countTokens(text)))
})

it("keeps counts in the data dir: a second counter reads them instead of counting", async () => {
  const first = new TokenCounter({ dataDir: dir })
  const counted = await first.count(texts)
  await first.save()
  const saved = JSON.parse(await readFile(join(dir, CACHE_FILE), "utf8"))
  expect(saved.counts[textKey("hello world")]).toBe(countTokens("hello world"))

  // A count the file holds is taken as it is (a planted value proves nothing was recounted): by the
  // text's key, and, for the texts counted last, by the whole text (which no hash is needed to find).
  expect(saved.recent).toEqual(texts.map((text, i) => [text, counted[i]]))
  const withoutRecent = { ...saved, recent: undefined }
  withoutRecent.counts[textKey("hello world")] = 999
  await writeFile(join(dir, CACHE_FILE), JSON.stringify(withoutRecent))
  const second = await new TokenCounter({ dataDir: dir }).count(texts)
  expect(second).toEqual(counted.map((count, i) => (texts[i] === "hello world" ? 999 : count)))
  const plantedRecent = {
    ...saved,
    recent: saved.recent.map(([text, count]: [string, number]) => [
      text,
      text === "hello world" ? 777 : count,
    ]),
  }
  await writeFile(join(dir, CACHE_FILE), JSON.stringify(plantedRecent))
  expect(await new TokenCounter({ dataDir: dir }).count(["hello world"])).toEqual([777])
})

it("finds the texts counted last without hashing them: node:crypto stays unloaded", async () => {
  const first = new TokenCounter({ dataDir: dir })
  const big = texts.map((text) => text.repeat(3))
  await first.count(big)
  await first.save()
  const script = `const { TokenCounter } = await import(${JSON.stringify(new URL("./count.ts", import.meta.url).href)})
const counts = await new TokenCounter({ dataDir: ${JSON.stringify(dir)} }).count(${JSON.stringify(big)})
console.log(JSON.stringify(counts), process.moduleLoadList.includes("NativeModule crypto"))`
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
  expect(result.stderr).toBe("")
  expect(result.stdout.trim()).toBe(`${JSON.stringify(big.map((text) => countTokens(text)))} false`)
})

it("keeps at most RECENT_CHARS of whole texts, the latest and those asked for again", async () => {
  const counter = new TokenCounter({ dataDir: dir })
  const chunk = Math.floor(RECENT_CHARS / 3)
  const text = (n: number) => String(n).repeat(chunk / String(n).length)
  await counter.count([text(1), text(2), text(3)])
  await counter.count([text(1)]) // asked again: now the newest
  await counter.count([text(4), text(5)]) // past the bound: the oldest (2, then 3) go
  await counter.save()
  const saved = JSON.parse(await readFile(join(dir, CACHE_FILE), "utf8"))
  expect(saved.recent.map(([kept]: [string]) => kept[0])).toEqual(["1", "4", "5"])
  expect(
    saved.recent.reduce((chars: number, [kept]: [string]) => chars + kept.length, 0),
  ).toBeLessThanOrEqual(RECENT_CHARS)
  // Dropped from the whole texts, still known by key.
  expect(saved.counts[textKey(text(2))]).toBe(countTokens(text(2)))
})

it("ignores a corrupt cache file and replaces it", async () => {
  await writeFile(join(dir, CACHE_FILE), "{not json")
  const counter = new TokenCounter({ dataDir: dir })
  expect(await counter.count(["hello world"])).toEqual([countTokens("hello world")])
  await counter.save()
  expect(JSON.parse(await readFile(join(dir, CACHE_FILE), "utf8")).v).toBe(1)

  // Wrong shapes and values are dropped too.
  await writeFile(join(dir, CACHE_FILE), JSON.stringify({ v: 1, counts: { [textKey("a")]: "nine" } }))
  expect(await new TokenCounter({ dataDir: dir }).count(["a"])).toEqual([countTokens("a")])
})

it("keeps at most MAX_CACHED counts, the latest", async () => {
  const counter = new TokenCounter({ dataDir: dir })
  const many = Array.from({ length: MAX_CACHED + 10 }, (_, i) => `t${i}`)
  await counter.count(many)
  await counter.save()
  const saved = JSON.parse(await readFile(join(dir, CACHE_FILE), "utf8"))
  expect(Object.keys(saved.counts)).toHaveLength(MAX_CACHED)
  expect(saved.counts[textKey("t0")]).toBeUndefined()
  expect(saved.counts[textKey(`t${MAX_CACHED + 9}`)]).toBe(countTokens(`t${MAX_CACHED + 9}`))
})

it("two counts at once of the same texts agree (one worker counts them)", async () => {
  const counter = new TokenCounter()
  const [a, b] = await Promise.all([counter.count(texts), counter.count([...texts].reverse())])
  expect(a).toEqual(texts.map((text) => countTokens(text)))
  expect(b).toEqual([...a].reverse())
})

it("close waits for the counts being made and writes nothing after", async () => {
  const counter = new TokenCounter({ dataDir: dir })
  const counting = counter.count(["a text being counted while the toolbelt closes"])
  await counter.close()
  await counting
  // The data dir can go at once: nothing lands in it later.
  await rm(dir, { recursive: true })
  await counter.count(["another text, after close"])
  await new Promise((resolve) => setTimeout(resolve, 50))
  await expect(readFile(join(dir, CACHE_FILE), "utf8")).rejects.toMatchObject({ code: "ENOENT" })
})

it("writes the file once for what a count added, keyed and whole, and nothing at close", async () => {
  const counter = new TokenCounter({ dataDir: dir })
  await counter.count(["one text", "another text"])
  await counter.save() // waits for the write the count started; writes nothing of its own
  const written = await stat(join(dir, CACHE_FILE))
  const saved = JSON.parse(await readFile(join(dir, CACHE_FILE), "utf8"))
  expect(saved.recent.map(([text]: [string]) => text)).toEqual(["one text", "another text"])
  expect(Object.keys(saved.counts)).toHaveLength(2)
  await counter.count(["one text"]) // found whole: nothing to write
  await counter.close()
  const after = await stat(join(dir, CACHE_FILE))
  expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs])
})
