import { spawnSync } from "node:child_process"
import { existsSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { START_AFTER_COMMITS } from "./checkpointer.ts"
import { tempDirs } from "./fixtures/helpers.ts"
import { BACKGROUND_WAL_CHECKPOINT_PAGES, openDatabase } from "./sqlite.ts"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

const ROW = "x".repeat(3000) // about one page per commit

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function commitRows(path: string, count: number, backgroundCheckpoints = true) {
  const db = openDatabase(path, { backgroundCheckpoints })
  db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
  for (let i = 0; i < count; i++) db.transaction(() => insert.run(`${i} ${ROW}`))
  return db
}

describe("background checkpoints", () => {
  it("copy a busy connection's WAL into the database file from another thread", async () => {
    const path = join(dirs.make(), "x.db")
    const rows = START_AFTER_COMMITS * 3
    // Far below the writer's own autocheckpoint: only the worker can have copied these pages.
    const db = commitRows(path, rows)
    await until(() => statSync(path).size > rows * ROW.length, "the rows reach the database file")
    expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: rows })
    db.close()
  })

  it("never start for a connection that commits a few times (a one-shot CLI call)", async () => {
    const path = join(dirs.make(), "x.db")
    const db = commitRows(path, START_AFTER_COMMITS - 2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    // Nothing but the schema's pages reached the file: the rows are all still in the WAL.
    expect(statSync(path).size).toBeLessThan(ROW.length * 2)
    db.close()
  })

  it("start at once for a connection told to expect load, before its first commit", async () => {
    const path = join(dirs.make(), "x.db")
    const db = openDatabase(path)
    db.expectLoad()
    // The worker took over: the connection's own autocheckpoint is now the far bound.
    const autocheckpoint = () => db.prepare("PRAGMA wal_autocheckpoint").get()
    expect(autocheckpoint()).toEqual({ wal_autocheckpoint: BACKGROUND_WAL_CHECKPOINT_PAGES })
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    // Fewer commits than would start it on their own: only the worker copies them to the file.
    for (let i = 0; i < 4; i++) db.transaction(() => insert.run(`${i} ${ROW}`))
    await until(() => statSync(path).size > 4 * ROW.length, "the worker checkpoints the few commits")
    db.expectLoad() // once only: a second call starts nothing more
    db.close()
    db.expectLoad() // closed: nothing to start
    await until(() => !existsSync(`${path}-wal`), "the WAL is removed")
  })

  it("end with the connection: its WAL is checkpointed and removed once both are closed", async () => {
    const path = join(dirs.make(), "x.db")
    const db = commitRows(path, START_AFTER_COMMITS * 2)
    await until(() => statSync(path).size > ROW.length * START_AFTER_COMMITS, "the worker checkpoints")
    db.close()
    // The last connection to close removes the WAL: the worker's has closed too.
    await until(() => !existsSync(`${path}-wal`), "the WAL is removed")
    const again = openDatabase(path, { backgroundCheckpoints: false })
    expect(again.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: START_AFTER_COMMITS * 2 })
    again.close()
  })

  it("do not keep a process alive that never closes its connection", () => {
    const path = join(dirs.make(), "x.db")
    // The child waits until the worker has checkpointed (so it did start), then leaves its event loop
    // empty: it must exit at once, the connection and the worker still open.
    const script = `
      import { statSync } from "node:fs"
      import { openDatabase } from ${JSON.stringify(new URL("./sqlite.ts", import.meta.url).href)}
      const db = openDatabase(${JSON.stringify(path)})
      db.exec("CREATE TABLE t (v TEXT)")
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
      for (let i = 0; i < ${START_AFTER_COMMITS * 4}; i++) db.transaction(() => insert.run("${ROW}"))
      const poll = () => {
        if (statSync(${JSON.stringify(path)}).size > ${START_AFTER_COMMITS * 3 * ROW.length}) console.log("checkpointed")
        else setTimeout(poll, 20)
      }
      poll()
    `
    // A file, not --eval: workers inherit --input-type, which Node then refuses for their own file.
    const file = join(dirs.make(), "child.mjs")
    writeFileSync(file, script)
    const child = spawnSync(process.execPath, [file], {
      encoding: "utf8",
      timeout: 20_000,
    })
    expect(child.stderr).toBe("")
    expect(child.stdout.trim()).toBe("checkpointed")
    expect(child.status).toBe(0)
    const db = openDatabase(path, { backgroundCheckpoints: false })
    expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: START_AFTER_COMMITS * 4 })
    db.close()
  })
})
