import { spawn } from "node:child_process"
import { existsSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { part, running, tempDirs } from "./fixtures/helpers.ts"
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
      // Opening writes nothing (the owner's row comes with the first thing stamped): it opens; a write
      // then meets the lock, in a transaction or on its own.
      const store = openStore({ dataDir: dir, busyTimeout: 50 })
      try {
        const busy =
          /^The toolbelt store .*toolbelt\.db stayed locked by other toolbelt processes for over 0\.05 s, so this write to it was not made\. Retry/
        expect(() =>
          store.db.transaction(() =>
            store.sessions.create({ id: "ses_busy", title: "t", projectID: "p", agent: "build" }),
          ),
        ).toThrow(busy)
        expect(() =>
          store.sessions.create({ id: "ses_busy", title: "t", projectID: "p", agent: "build" }),
        ).toThrow(busy)
      } finally {
        store.close()
      }
    } finally {
      holder.exec("ROLLBACK")
      holder.close()
    }
    // A new database meets the lock when it is made (its schema), before anything runs.
    const fresh = dirs.make()
    const maker = openDatabase(storePath(fresh))
    maker.exec("BEGIN IMMEDIATE")
    try {
      expect(() => openStore({ dataDir: fresh, busyTimeout: 50 })).toThrow(
        /^The toolbelt store .*toolbelt\.db stayed locked by other toolbelt processes for over 0\.05 s, so nothing was run\. Retry the call/,
      )
    } finally {
      maker.exec("ROLLBACK")
      maker.close()
    }
  })

  it("writes nothing when nothing is stamped: the owner's row comes with the first call, in its commit", async () => {
    const dir = dirs.make()
    openStore({ dataDir: dir }).close() // made, and its WAL folded back and removed at close
    const file = storePath(dir)
    const before = statSync(file)
    const store = openStore({ dataDir: dir })
    store.journal.recover()
    store.parts.list("ses_none")
    store.close()
    const after = statSync(file)
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs])
    expect(existsSync(`${file}-wal`)).toBe(false)

    // A call's first record carries the owner's row with it: another connection sees both or neither.
    const calling = open(dir)
    const peer = openDatabase(file)
    try {
      expect(peer.prepare("SELECT COUNT(*) AS n FROM owner").get<{ n: number }>()?.n).toBe(0)
      await calling.journal.started(part("call_1", running()))
      const owners = peer.prepare("SELECT id FROM owner").all<{ id: string }>()
      expect(owners.map((row) => row.id)).toEqual([calling.journal.owner])
      expect(peer.prepare("SELECT owner FROM part").get<{ owner: string }>()?.owner).toBe(
        calling.journal.owner,
      )
      // Another store's recovery sees a live owner: the running call is left alone.
      const other = open(dir)
      expect(other.journal.recover().interrupted).toEqual([])
    } finally {
      peer.close()
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
