import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { tempDirs } from "./fixtures/helpers.ts"
import { openDatabase } from "./sqlite.ts"
import { openStore, type Store, storePath } from "./store.ts"

// What only the SQLite engine has: a file in the data dir, a write lock other processes hold.
const dirs = tempDirs()
const stores: Store[] = []
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  dirs.cleanup()
})

function open(dir = dirs.make()): Store {
  const store = openStore({ dataDir: dir })
  stores.push(store)
  return store
}

describe("openStore (SQLite)", () => {
  it("keeps the store in <dataDir>/toolbelt.db, or at an exact path", () => {
    const dir = dirs.make()
    expect(open(dir).path).toBe(join(dir, "toolbelt.db"))
    expect(storePath(dir)).toBe(join(dir, "toolbelt.db"))
    const path = join(dirs.make(), "elsewhere.db")
    const store = openStore({ path })
    stores.push(store)
    expect(store.path).toBe(path)
  })

  it("a store another connection keeps locked past the busy timeout fails saying so, not 'database is locked'", () => {
    const dir = dirs.make()
    open(dir)
    const holder = openDatabase(storePath(dir))
    holder.exec("BEGIN IMMEDIATE")
    try {
      expect(() => openStore({ dataDir: dir, busyTimeout: 50 })).toThrow(
        /^The toolbelt store .*toolbelt\.db stayed locked by other toolbelt processes for over 0\.05 s, so nothing was run\. Retry the call/,
      )
    } finally {
      holder.exec("ROLLBACK")
      holder.close()
    }
  })

  it("many processes creating the same new store at once all open it", async () => {
    const dir = dirs.make()
    const path = join(dir, "new.db")
    const go = join(dir, "go")
    const fixture = join(import.meta.dirname, "fixtures", "open-at-once.ts")
    const runs = Array.from({ length: 12 }, () => {
      const child = spawn(process.execPath, [fixture, path, go], { stdio: ["ignore", "ignore", "pipe"] })
      let err = ""
      child.stderr.on("data", (chunk) => (err += chunk))
      return new Promise<{ code: number | null; err: string }>((done) =>
        child.on("close", (code) => done({ code, err })),
      )
    })
    writeFileSync(go, "")
    const results = await Promise.all(runs)
    expect(results.filter((result) => result.code !== 0)).toEqual([])
    const store = open(dir)
    expect(store).toBeDefined()
  }, 120_000)
})
