import { spawnSync } from "node:child_process"
import { mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { createSha256 as sha256 } from "../util/sha256.ts"
import { readLinesFromBytes } from "./read-lines-from-bytes.ts"
import { SETTLED_MS, VersionCache } from "./version-cache.ts"

const NOW = 1_800_000_000_000
const settled = { dev: 1, ino: 42, size: 3, mtimeMs: NOW - 60_000, ctimeMs: NOW - 60_000 }

describe("VersionCache", () => {
  it("keeps a value for a file version whose last change has settled", () => {
    const cache = new VersionCache<string>(8)
    cache.set(settled, "h1", "", NOW)
    expect(cache.get(settled)).toBe("h1")
    expect(cache.get({ ...settled })).toBe("h1")
  })

  it("keeps nothing of a file changed less than SETTLED_MS ago (a same-tick write could look identical)", () => {
    const cache = new VersionCache<string>(8)
    cache.set({ ...settled, ctimeMs: NOW - SETTLED_MS + 1 }, "h1", "", NOW)
    cache.set({ ...settled, ino: 43, mtimeMs: NOW - 10 }, "h2", "", NOW)
    expect(cache.size).toBe(0)
  })

  it("misses once anything of the version moved: size, times, inode or device; or another key", () => {
    const cache = new VersionCache<string>(8)
    cache.set(settled, "h1", "page 1", NOW)
    for (const changed of [
      { size: 4 },
      { mtimeMs: settled.mtimeMs + 1 },
      { ctimeMs: settled.ctimeMs + 0.001 },
      { ino: 7 },
      { dev: 2 },
    ])
      expect(cache.get({ ...settled, ...changed }, "page 1")).toBeUndefined()
    expect(cache.get(settled, "page 2")).toBeUndefined()
    expect(cache.get(settled, "page 1")).toBe("h1")
  })

  it("keeps the most recently used entries", () => {
    const cache = new VersionCache<string>(2)
    const a = { ...settled, ino: 1 }
    const b = { ...settled, ino: 2 }
    const c = { ...settled, ino: 3 }
    cache.set(a, "a", "", NOW)
    cache.set(b, "b", "", NOW)
    cache.get(a) // a is now newer than b
    cache.set(c, "c", "", NOW)
    expect([cache.get(a), cache.get(b), cache.get(c)]).toEqual(["a", undefined, "c"])
  })
})

describe("readLinesFromBytes hashing", () => {
  it("hashes a settled file once: the same version gives the remembered digest", () => {
    const version = { dev: 99, ino: 12345, size: 4, mtimeMs: 1_000, ctimeMs: 1_000 }
    const first = readLinesFromBytes(Buffer.from("one\n"), version, { hash: true })
    expect(first.hash).toBe(sha256().update("one\n").digest("hex"))
    // The version says nothing changed, so the digest is not computed again from these bytes.
    expect(readLinesFromBytes(Buffer.from("two\n"), version, { hash: true }).hash).toBe(first.hash)
    // A new ctime is a new version: hashed afresh.
    const changed = { ...version, ctimeMs: 2_000 }
    expect(readLinesFromBytes(Buffer.from("two\n"), changed, { hash: true }).hash).toBe(
      sha256().update("two\n").digest("hex"),
    )
  })

  it("hashes a recently changed file every time", () => {
    const version = { dev: 99, ino: 777, size: 4, mtimeMs: Date.now(), ctimeMs: Date.now() }
    readLinesFromBytes(Buffer.from("one\n"), version, { hash: true })
    expect(readLinesFromBytes(Buffer.from("two\n"), version, { hash: true }).hash).toBe(
      sha256().update("two\n").digest("hex"),
    )
  })

  it("a file another process rewrote looks like another version, even at the same size with its mtime put back", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolbelt-version-"))
    try {
      const file = join(dir, "a.txt")
      await writeFile(file, "aaaa\n")
      await utimes(file, 1_700_000_000, 1_700_000_000)
      const cache = new VersionCache<string>(8)
      const first = await stat(file)
      // As if read long after its last change.
      cache.set(first, "hash of aaaa", "", Date.now() + SETTLED_MS * 10)
      expect(cache.get(await stat(file))).toBe("hash of aaaa")
      // Another process: a same-size write in place, then an atomic replace (new inode), each with the
      // old mtime put back, as `cp -p` or a careful tool would.
      const rewrite = (script: string) => {
        const result = spawnSync(process.execPath, ["-e", script, file])
        expect(result.status).toBe(0)
      }
      const keepMtime = "fs.utimesSync(process.argv[1], 1700000000, 1700000000)"
      rewrite(`const fs = require("node:fs"); fs.writeFileSync(process.argv[1], "bbbb\\n"); ${keepMtime}`)
      const inPlace = await stat(file)
      expect(inPlace.mtimeMs).toBe(first.mtimeMs)
      expect(cache.get(inPlace)).toBeUndefined()
      rewrite(
        `const fs = require("node:fs"); fs.writeFileSync(process.argv[1] + ".tmp", "cccc\\n"); ` +
          `fs.renameSync(process.argv[1] + ".tmp", process.argv[1]); ${keepMtime}`,
      )
      const replaced = await stat(file)
      expect(replaced.ino).not.toBe(first.ino)
      expect(cache.get(replaced)).toBeUndefined()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
