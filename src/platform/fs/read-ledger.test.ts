import { mkdtemp, realpath, rm, stat, symlink, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, expectTypeOf, test } from "vitest"
import type { ReadLedger as StoreReadLedger } from "../store/read-ledger.ts"
import {
  checkFresh,
  fileStamp,
  hashFile,
  identityFingerprint,
  isUnchanged,
  LEDGER_HASH_MAX_BYTES,
  MemoryReadLedger,
  type ReadLedger,
  recordStamp,
} from "./read-ledger.ts"
import { hashContent } from "./text.ts"

let dir: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-ledger-")))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("MemoryReadLedger", () => {
  test("records, gets and forgets per session and path", () => {
    const ledger = new MemoryReadLedger()
    const entry = ledger.record("s1", "/a", { hash: "h", mtime: 1, size: 2 }, 1000)
    expect(entry).toEqual({ hash: "h", mtime: 1, size: 2, time: 1000 })
    expect(ledger.get("s1", "/a")).toEqual(entry)
    expect(ledger.get("s2", "/a")).toBeUndefined()
    expect(ledger.get("s1", "/b")).toBeUndefined()
    ledger.record("s1", "/a", { hash: "h2", mtime: 3, size: 4 }, 2000)
    expect(ledger.get("s1", "/a")?.hash).toBe("h2")
    expect(ledger.forget("s1", "/a")).toBe(true)
    expect(ledger.forget("s1", "/a")).toBe(false)
    expect(ledger.get("s1", "/a")).toBeUndefined()
  })

  test("clear drops a whole session", () => {
    const ledger = new MemoryReadLedger()
    ledger.record("s1", "/a", { hash: "h", mtime: 1, size: 2 })
    ledger.record("s2", "/a", { hash: "h", mtime: 1, size: 2 })
    ledger.clear("s1")
    expect(ledger.get("s1", "/a")).toBeUndefined()
    expect(ledger.get("s2", "/a")).toBeDefined()
  })

  test("the SQLite store's ledger satisfies the same contract", () => {
    expectTypeOf<StoreReadLedger>().toExtend<ReadLedger>()
  })
})

describe("hashFile and fileStamp", () => {
  test("hash the bytes on disk like hashContent", async () => {
    const content = "\uFEFFhello\r\nwörld"
    const path = join(dir, "f.txt")
    await writeFile(path, content)
    expect(await hashFile(path)).toBe(hashContent(content))
    const stats = await stat(path)
    expect(await fileStamp(path)).toEqual({
      hash: hashContent(content),
      mtime: stats.mtimeMs,
      size: stats.size,
    })
  })

  test("a file larger than one chunk", async () => {
    const content = Buffer.alloc(3 * 1024 * 1024 + 7, 0x61)
    const path = join(dir, "big")
    await writeFile(path, content)
    expect(await hashFile(path)).toBe(hashContent(content))
  })
})

describe("checkFresh", () => {
  async function readFileInto(ledger: ReadLedger, path: string, content: string) {
    await writeFile(path, content)
    await recordStamp(ledger, "s1", path)
  }

  test("never read: tells the model to read first", async () => {
    const path = join(dir, "a.txt")
    await writeFile(path, "x")
    expect(await checkFresh(new MemoryReadLedger(), "s1", path)).toEqual({
      ok: false,
      reason: "not-read",
      message: `You must read the file ${path} before overwriting it. Use the read tool first.`,
    })
  })

  test("read and unchanged: fresh", async () => {
    const ledger = new MemoryReadLedger()
    const path = join(dir, "a.txt")
    await readFileInto(ledger, path, "content")
    expect(await checkFresh(ledger, "s1", path)).toEqual({ ok: true })
  })

  test("another session's read does not count", async () => {
    const ledger = new MemoryReadLedger()
    const path = join(dir, "a.txt")
    await readFileInto(ledger, path, "content")
    expect(await checkFresh(ledger, "s2", path)).toMatchObject({ ok: false, reason: "not-read" })
  })

  test("touched (mtime changed) but the same content: still fresh, no clock false alarm", async () => {
    const ledger = new MemoryReadLedger()
    const path = join(dir, "a.txt")
    await readFileInto(ledger, path, "content")
    await utimes(path, new Date(), new Date(Date.now() + 60_000))
    expect(await checkFresh(ledger, "s1", path)).toEqual({ ok: true })
  })

  test("rewritten with the same size and the same mtime: caught by the hash", async () => {
    const ledger = new MemoryReadLedger()
    const path = join(dir, "a.txt")
    await readFileInto(ledger, path, "aaaa")
    const before = await stat(path)
    await writeFile(path, "bbbb")
    await utimes(path, before.atime, before.mtime)
    const result = await checkFresh(ledger, "s1", path)
    expect(result).toMatchObject({ ok: false, reason: "changed" })
    expect(result.ok === false && result.message).toMatch(
      new RegExp(
        `^The file ${path} was modified since it was last read \\(by you, at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\), ` +
          "by another tool call or by something else; it was last modified at .*Z\\. Read it again before writing\\.$",
      ),
    )
  })

  test("a different size is a change", async () => {
    const ledger = new MemoryReadLedger()
    const path = join(dir, "a.txt")
    await readFileInto(ledger, path, "short")
    await writeFile(path, "much longer now")
    expect(await checkFresh(ledger, "s1", path)).toMatchObject({ ok: false, reason: "changed" })
  })

  test("a file deleted since it was read: nothing to lose, fresh", async () => {
    const ledger = new MemoryReadLedger()
    const path = join(dir, "a.txt")
    await readFileInto(ledger, path, "x")
    await rm(path)
    expect(await checkFresh(ledger, "s1", path)).toEqual({ ok: true })
  })

  test("read through a symlink, written through the target (and back): one entry", async () => {
    const ledger = new MemoryReadLedger()
    const target = join(dir, "target.txt")
    await writeFile(target, "x")
    await symlink(target, join(dir, "link.txt"))
    await recordStamp(ledger, "s1", join(dir, "link.txt"))
    expect(await checkFresh(ledger, "s1", target)).toEqual({ ok: true })
    expect(ledger.get("s1", target)).toBeDefined()
  })

  test("recordStamp takes the caller's stamp when given", async () => {
    const ledger = new MemoryReadLedger()
    const path = join(dir, "a.txt")
    await writeFile(path, "on disk")
    await recordStamp(ledger, "s1", path, { hash: hashContent("what the model saw"), mtime: 0, size: 7 })
    expect(await checkFresh(ledger, "s1", path)).toMatchObject({ ok: false, reason: "changed" })
  })

  test("works with an asynchronous ledger", async () => {
    const memory = new MemoryReadLedger()
    const ledger: ReadLedger = {
      record: async (...args) => memory.record(...args),
      get: async (...args) => memory.get(...args),
      forget: async (...args) => memory.forget(...args),
    }
    const path = join(dir, "a.txt")
    await readFileInto(ledger, path, "x")
    expect(await checkFresh(ledger, "s1", path)).toEqual({ ok: true })
  })
})

describe("large files: identity fingerprints", () => {
  test("fileStamp fingerprints a file over the hash limit instead of hashing it", async () => {
    const path = join(dir, "big.bin")
    await writeFile(path, Buffer.alloc(LEDGER_HASH_MAX_BYTES + 1, 0x61))
    const stamp = await fileStamp(path)
    expect(stamp.hash).toBe(identityFingerprint(await stat(path)))
    expect(stamp.hash).toMatch(/^stat:\d+:\d+:16777217:/)
    expect(await isUnchanged(stamp, path)).toBe(true)
  })

  test("any write changes the fingerprint, even one of the same size and mtime", async () => {
    const path = join(dir, "big.bin")
    await writeFile(path, Buffer.alloc(LEDGER_HASH_MAX_BYTES + 1, 0x61))
    const stamp = await fileStamp(path)
    const before = await stat(path)
    await new Promise((resolve) => setTimeout(resolve, 20))
    await writeFile(path, Buffer.alloc(LEDGER_HASH_MAX_BYTES + 1, 0x62))
    // Set the mtime back, as `touch -r` or `cp -p` would: only the ctime still tells.
    await utimes(path, before.atimeMs / 1000, before.mtimeMs / 1000)
    expect(Math.abs((await stat(path)).mtimeMs - before.mtimeMs)).toBeLessThan(1)
    expect(await isUnchanged(stamp, path)).toBe(false)
    const ledger = new MemoryReadLedger()
    await recordStamp(ledger, "s1", path, stamp)
    expect(await checkFresh(ledger, "s1", path)).toMatchObject({ ok: false, reason: "changed" })
  })

  test("a file replaced by another (a new inode) is a change", async () => {
    const path = join(dir, "big.bin")
    await writeFile(path, "same")
    const stamp = { hash: identityFingerprint(await stat(path)), mtime: 0, size: 4 }
    const other = join(dir, "other.bin")
    await writeFile(other, "same")
    const { rename } = await import("node:fs/promises")
    await rename(other, path)
    expect(await isUnchanged(stamp, path)).toBe(false)
  })

  test("isUnchanged compares a hash with the bytes the caller holds, or with the file", async () => {
    const path = join(dir, "small.txt")
    await writeFile(path, "hello\n")
    const stamp = await fileStamp(path)
    expect(await isUnchanged(stamp, path)).toBe(true)
    expect(await isUnchanged(stamp, path, { data: Buffer.from("hello\n") })).toBe(true)
    expect(await isUnchanged(stamp, path, { data: Buffer.from("hellO\n") })).toBe(false)
    await writeFile(path, "hellO\n")
    expect(await isUnchanged(stamp, path)).toBe(false)
  })
})
