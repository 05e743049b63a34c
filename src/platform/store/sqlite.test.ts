import { spawn } from "node:child_process"
import { statSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { tempDirs } from "./fixtures/helpers.ts"
import { driver, type OpenOptions, openDatabase, switchToWal, WAL_CHECKPOINT_PAGES } from "./sqlite.ts"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

function table(path: string, options: OpenOptions = {}) {
  const db = openDatabase(path, options)
  db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
  return db
}

const values = (db: ReturnType<typeof openDatabase>) =>
  db
    .prepare("SELECT v FROM t ORDER BY id")
    .all<{ v: string }>()
    .map((row) => row.v)

describe("openDatabase", () => {
  it("waits while another process reads a new database it must switch to WAL", async () => {
    const path = join(dirs.make(), "new.db")
    // Another process makes the database (rollback journal, as SQLite starts) and keeps reading it.
    const reader = spawn(
      process.execPath,
      [
        "-e",
        `const { DatabaseSync } = require("node:sqlite")
         const db = new DatabaseSync(${JSON.stringify(path)})
         db.exec("CREATE TABLE t (x)")
         db.exec("BEGIN")
         db.prepare("SELECT count(*) FROM t").get()
         console.log("reading")
         setTimeout(() => { db.exec("COMMIT"); db.close() }, 400)`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    const ended = new Promise((resolve) => reader.once("exit", resolve))
    await new Promise<void>((resolve) => reader.stdout!.once("data", () => resolve()))
    const started = Date.now()
    const db = openDatabase(path)
    try {
      expect(Date.now() - started).toBeGreaterThan(100)
      expect(db.prepare("PRAGMA journal_mode").get<{ journal_mode: string }>()?.journal_mode).toBe("wal")
    } finally {
      db.close()
      await ended
    }
  })

  // The race itself (two connections reading a new file, both wanting its exclusive lock) cannot be
  // made on demand; the switch is given a connection that answers as SQLite does then.
  it("switching to WAL tries again while SQLite answers 'database is locked' at once, up to the busy timeout", () => {
    const answers = (busy: number) => {
      const seen: string[] = []
      return {
        seen,
        exec(sql: string) {
          seen.push(sql)
          if (seen.length <= busy) throw new Error("database is locked")
        },
      }
    }
    const twice = answers(2)
    switchToWal(twice, 5_000)
    expect(twice.seen).toEqual(Array(3).fill("PRAGMA journal_mode = WAL"))
    // Past the busy timeout the error stands; another error is not tried again.
    expect(() => switchToWal(answers(1_000_000), 30)).toThrow("database is locked")
    const broken = {
      calls: 0,
      exec() {
        broken.calls++
        throw new Error("disk I/O error")
      },
    }
    expect(() => switchToWal(broken, 5_000)).toThrow("disk I/O error")
    expect(broken.calls).toBe(1)
  })

  it("uses node:sqlite on Node", () => {
    expect(driver).toBe(process.versions.bun ? "bun:sqlite" : "node:sqlite")
  })

  it("creates the parent directory (0700) and the file (0600)", () => {
    const path = join(dirs.make(), "deep", "er", "toolbelt.db")
    const db = openDatabase(path)
    db.close()
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700)
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it("sets WAL, busy_timeout, foreign keys and the chosen synchronous", () => {
    const path = join(dirs.make(), "x.db")
    const pragma = (db: ReturnType<typeof openDatabase>, name: string) =>
      Object.values(db.prepare(`PRAGMA ${name}`).get()!)[0]
    const normal = openDatabase(path)
    expect(pragma(normal, "journal_mode")).toBe("wal")
    expect(pragma(normal, "busy_timeout")).toBe(60_000)
    expect(pragma(normal, "foreign_keys")).toBe(1)
    expect(pragma(normal, "synchronous")).toBe(1) // NORMAL
    expect(pragma(normal, "wal_autocheckpoint")).toBe(WAL_CHECKPOINT_PAGES)
    expect(normal.synchronous).toBe("NORMAL")
    normal.close()
    const full = openDatabase(path, { synchronous: "FULL", busyTimeout: 100 })
    expect(pragma(full, "synchronous")).toBe(2)
    expect(pragma(full, "busy_timeout")).toBe(100)
    full.close()
  })

  it("lets the WAL grow past SQLite's default 1000 pages before a commit checkpoints it", () => {
    const path = join(dirs.make(), "x.db")
    const db = table(path, { backgroundCheckpoints: false })
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    const page = "x".repeat(3000) // about one page per commit
    for (let i = 0; i < 2500; i++) db.transaction(() => insert.run(`${i} ${page}`))
    // Each commit appends its pages after the last: had a checkpoint run, the WAL would restart.
    const walPages = statSync(`${path}-wal`).size / (4096 + 24)
    expect(walPages).toBeGreaterThan(2500)
    expect(walPages).toBeLessThan(WAL_CHECKPOINT_PAGES * 1.5)
    db.close()
  })

  it("opens :memory: without touching the disk", () => {
    const db = openDatabase(":memory:")
    db.exec("CREATE TABLE t (v TEXT)")
    expect(db.prepare("INSERT INTO t VALUES (?)").run("a")).toEqual({ changes: 1, lastInsertRowid: 1 })
    expect(db.prepare("SELECT v FROM t WHERE v = ?").get("zzz")).toBeUndefined()
    db.close()
    db.close() // idempotent
  })
})

describe("transaction", () => {
  it("commits what the function did and returns its value", () => {
    const db = table(join(dirs.make(), "x.db"))
    const result = db.transaction(() => {
      expect(db.inTransaction).toBe(true)
      return db.prepare("INSERT INTO t (v) VALUES (?)").run("a").lastInsertRowid
    })
    expect(result).toBe(1)
    expect(db.inTransaction).toBe(false)
    expect(values(db)).toEqual(["a"])
    db.close()
  })

  it("rolls back everything when the function throws, and rethrows", () => {
    const path = join(dirs.make(), "x.db")
    const db = table(path)
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    expect(() =>
      db.transaction(() => {
        insert.run("a")
        insert.run("b")
        throw new Error("boom")
      }),
    ).toThrow("boom")
    expect(values(db)).toEqual([])
    db.close()
    // and nothing reached the file either
    const again = table(path)
    expect(values(again)).toEqual([])
    again.close()
  })

  it("runs nested calls in savepoints: an inner throw caught outside undoes only the inner work", () => {
    const db = table(join(dirs.make(), "x.db"))
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    db.transaction(() => {
      insert.run("outer")
      expect(() =>
        db.transaction(() => {
          insert.run("inner")
          db.transaction(() => insert.run("innermost"))
          throw new Error("inner")
        }),
      ).toThrow("inner")
      db.transaction(() => insert.run("second inner"))
    })
    expect(values(db)).toEqual(["outer", "second inner"])
    db.close()
  })

  it("an inner throw that escapes rolls back the outer transaction too", () => {
    const db = table(join(dirs.make(), "x.db"))
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    expect(() =>
      db.transaction(() => {
        insert.run("outer")
        db.transaction(() => {
          insert.run("inner")
          throw new Error("escapes")
        })
      }),
    ).toThrow("escapes")
    expect(values(db)).toEqual([])
    expect(db.inTransaction).toBe(false)
    db.close()
  })

  it("refuses an async function and rolls back what it did before its first await", async () => {
    const db = table(join(dirs.make(), "x.db"))
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    expect(() =>
      db.transaction(async () => {
        insert.run("sync part")
        await Promise.resolve()
      }),
    ).toThrow(TypeError)
    expect(values(db)).toEqual([])
    expect(db.inTransaction).toBe(false)
    db.close()
  })

  it("rolls back a constraint failure and leaves the connection usable", () => {
    const db = table(join(dirs.make(), "x.db"))
    const insert = db.prepare("INSERT INTO t (id, v) VALUES (?, ?)")
    insert.run(1, "a")
    expect(() =>
      db.transaction(() => {
        insert.run(2, "b")
        insert.run(1, "duplicate")
      }),
    ).toThrow(/UNIQUE|constraint/i)
    db.transaction(() => insert.run(3, "c"))
    expect(values(db)).toEqual(["a", "c"])
    db.close()
  })

  it("a second connection waits for the write lock instead of failing", () => {
    const path = join(dirs.make(), "x.db")
    const a = table(path)
    const b = openDatabase(path, { busyTimeout: 50 })
    a.exec("BEGIN IMMEDIATE")
    const started = Date.now()
    expect(() => b.transaction(() => {})).toThrow(/locked|busy/i)
    expect(Date.now() - started).toBeGreaterThanOrEqual(40)
    a.exec("COMMIT")
    b.transaction(() => b.prepare("INSERT INTO t (v) VALUES ('b')").run())
    expect(values(a)).toEqual(["b"])
    a.close()
    b.close()
  })
})
