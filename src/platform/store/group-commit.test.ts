import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { tempDirs } from "./fixtures/helpers.ts"
import { GroupCommit } from "./group-commit.ts"
import { type Database, openDatabase } from "./sqlite.ts"

const dirs = tempDirs()
const open: Database[] = []
afterEach(() => {
  for (const db of open.splice(0)) db.close()
  dirs.cleanup()
})

/** A database that counts its outermost transactions (commits). */
function counted(): { db: Database; other: Database; commits: () => number } {
  const path = join(dirs.make(), "x.db")
  const db = openDatabase(path)
  db.exec("CREATE TABLE t (v TEXT NOT NULL UNIQUE)")
  let commits = 0
  const wrapped = withTransaction(db, (fn) => {
    const outer = !db.inTransaction
    const result = db.transaction(fn)
    if (outer) commits++
    return result
  })
  const other = openDatabase(path)
  open.push(db, other)
  return { db: wrapped, other, commits: () => commits }
}

/** `db` with its `transaction` replaced. */
function withTransaction(db: Database, transaction: <T>(fn: () => T) => T): Database {
  return {
    get engine() {
      return db.engine
    },
    get path() {
      return db.path
    },
    get synchronous() {
      return db.synchronous
    },
    get inTransaction() {
      return db.inTransaction
    },
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    transaction,
    close: () => db.close(),
  }
}

const rows = (db: Database) =>
  db
    .prepare("SELECT v FROM t ORDER BY rowid")
    .all<{ v: string }>()
    .map((r) => r.v)

describe("GroupCommit", () => {
  it("commits the writes of one turn together, in order, and resolves only after the commit", async () => {
    const { db, other, commits } = counted()
    const group = new GroupCommit(db)
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    const seen: string[][] = []
    const writes = ["a", "b", "c"].map((v) =>
      group.run(() => {
        insert.run(v)
        return v.toUpperCase()
      }),
    )
    expect(group.pending).toBe(3)
    expect(rows(other)).toEqual([]) // nothing written before the loop comes round
    for (const write of writes) void write.then(() => seen.push(rows(other)))
    expect(await Promise.all(writes)).toEqual(["A", "B", "C"])
    expect(commits()).toBe(1)
    expect(seen).toEqual([
      ["a", "b", "c"],
      ["a", "b", "c"],
      ["a", "b", "c"],
    ])
    await group.run(() => insert.run("d"))
    expect(commits()).toBe(2)
  })

  it("a write that throws is undone alone; the rest of its batch commits", async () => {
    const { db, other } = counted()
    const group = new GroupCommit(db)
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    const results = await Promise.allSettled([
      group.run(() => insert.run("a")),
      group.run(() => {
        insert.run("half")
        insert.run("a") // UNIQUE violation after a write: the whole write is undone
      }),
      group.run(() => insert.run("c")),
    ])
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"])
    expect(rows(other)).toEqual(["a", "c"])
  })

  it("when the commit fails, every write of the batch rejects and nothing is kept", async () => {
    const { db, other } = counted()
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    const failing = withTransaction(db, (fn) => {
      if (db.inTransaction) return db.transaction(fn)
      return db.transaction(() => {
        fn()
        throw new Error("disk I/O error")
      })
    })
    const group = new GroupCommit(failing)
    const results = await Promise.allSettled([
      group.run(() => insert.run("a")),
      group.run(() => insert.run("b")),
    ])
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"])
    expect(rows(other)).toEqual([])
  })

  it("flush() commits now, so a read sees every write issued before it", async () => {
    const { db, other } = counted()
    const group = new GroupCommit(db)
    const write = group.run(() => db.prepare("INSERT INTO t (v) VALUES ('a')").run())
    group.flush()
    expect(rows(other)).toEqual(["a"])
    await write
  })

  it("a deferred write costs no commit of its own: it rides with the next batch, in order", async () => {
    const { db, other, commits } = counted()
    const group = new GroupCommit(db)
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    const deferred = group.defer(() => insert.run("stamp"))
    await new Promise((resolve) => setImmediate(resolve))
    expect(rows(other)).toEqual([]) // no commit was asked for yet
    await group.run(() => insert.run("step"))
    await deferred
    expect(rows(other)).toEqual(["stamp", "step"])
    expect(commits()).toBe(1)
    expect(group.commits).toBe(1)
  })

  it("a deferred write with no batch to ride with commits on its own within DEFER_MS", async () => {
    const { db, other, commits } = counted()
    const group = new GroupCommit(db)
    await group.defer(() => db.prepare("INSERT INTO t (v) VALUES ('alone')").run())
    expect(rows(other)).toEqual(["alone"])
    expect(commits()).toBe(1)
  })

  it("close() commits what is queued and refuses later writes", async () => {
    const { db, other } = counted()
    const group = new GroupCommit(db)
    const write = group.run(() => db.prepare("INSERT INTO t (v) VALUES ('a')").run())
    group.close()
    await write
    expect(rows(other)).toEqual(["a"])
    await expect(group.run(() => 1)).rejects.toThrow(/closed/)
  })
})

describe("GroupCommit inside a transaction opened elsewhere", () => {
  it("waits for that transaction to end instead of committing inside it", async () => {
    const { db, other } = counted()
    const group = new GroupCommit(db)
    const write = group.run(() => db.prepare("INSERT INTO t (v) VALUES ('queued')").run())
    db.exec("BEGIN IMMEDIATE")
    group.flush() // as a read inside the caller's transaction does
    db.prepare("INSERT INTO t (v) VALUES ('theirs')").run()
    expect(rows(db)).toEqual(["theirs"])
    db.exec("ROLLBACK")
    await write
    expect(rows(other)).toEqual(["queued"])
  })
})
