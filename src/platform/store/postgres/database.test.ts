import { afterEach, expect, it } from "vitest"
import { postgresOrSkip } from "../../../../test/fixtures/postgres.ts"
import { openStore } from "../store.ts"
import { isPostgres, openPostgres, type PostgresDatabase, PostgresError } from "./database.ts"

const pg = await postgresOrSkip()
const open: { close(): void }[] = []
afterEach(() => {
  for (const db of open.splice(0)) db.close()
})

async function fresh(): Promise<PostgresDatabase> {
  const db = openPostgres(await pg.server!.database())
  open.push(db)
  return db
}

function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a throw")
}

/** Resolves when `check` holds, polling the event loop (notifications arrive through it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10))
}

pg.describe("the PostgreSQL Database", () => {
  it("runs statements synchronously with ? placeholders; values round-trip with SQLite's types", async () => {
    const db = await fresh()
    expect(isPostgres(db)).toBe(true)
    expect(db.engine).toBe("postgres")
    db.exec("CREATE TABLE t (i BIGINT, f DOUBLE PRECISION, s TEXT, b BYTEA, n TEXT)")
    const insert = db.prepare("INSERT INTO t (i, f, s, b, n) VALUES (?, ?, ?, ?, ?)")
    expect(insert.run(42, 1.5, "it's ? here", new Uint8Array([0, 1, 255]), null).changes).toBe(1)
    insert.run(2n ** 60n, -0.25, "", new Uint8Array(), "x")
    const rows = db.prepare("SELECT i, f, s, b, n FROM t ORDER BY i").all()
    expect(rows).toEqual([
      { i: 42, f: 1.5, s: "it's ? here", b: new Uint8Array([0, 1, 255]), n: null },
      { i: 2n ** 60n, f: -0.25, s: "", b: new Uint8Array(), n: "x" },
    ])
    expect(db.prepare("SELECT count(*) AS c FROM t WHERE s = ?1 OR n = ?1").get("x")).toEqual({ c: 1 })
    expect(db.prepare("SELECT 1 FROM t WHERE i = ?").get(7)).toBeUndefined()
    expect(db.prepare("UPDATE t SET n = 'y' WHERE n IS NULL OR n = ?").run("x").changes).toBe(2)
  })

  it("transactions commit, roll back on a throw, and nest as savepoints; an inner failure caught outside undoes only itself", async () => {
    const db = await fresh()
    db.exec("CREATE TABLE t (v TEXT PRIMARY KEY)")
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    const all = () =>
      db
        .prepare("SELECT v FROM t ORDER BY v")
        .all<{ v: string }>()
        .map((row) => row.v)
    expect(db.transaction(() => insert.run("a").changes)).toBe(1)
    expect(() =>
      db.transaction(() => {
        insert.run("b")
        throw new Error("undo")
      }),
    ).toThrow("undo")
    expect(db.inTransaction).toBe(false)
    db.transaction(() => {
      insert.run("c")
      expect(db.inTransaction).toBe(true)
      // A statement error inside a savepoint: PostgreSQL would abort the whole transaction without it.
      expect(() => db.transaction(() => insert.run("a"))).toThrow(
        /duplicate key value violates unique constraint/,
      )
      insert.run("d")
    })
    expect(all()).toEqual(["a", "c", "d"])
    expect(() => db.transaction(() => Promise.resolve(1))).toThrow(/synchronous function/)
  })

  it("inside a transaction, statements whose answers nobody reads go out with the next one that is read", async () => {
    const db = await fresh()
    db.exec("CREATE TABLE t (v TEXT PRIMARY KEY, n BIGINT)")
    const insert = db.prepare("INSERT INTO t (v, n) VALUES (?, ?)")
    const count = db.prepare("SELECT count(*) AS c FROM t")
    const trips = (fn: () => unknown) => {
      const before = db.roundTrips
      fn()
      return db.roundTrips - before
    }
    // BEGIN, three inserts and COMMIT: one message.
    expect(
      trips(() =>
        db.transaction(() => {
          for (const [n, v] of ["a", "b", "c"].entries()) insert.run(v, n)
        }),
      ),
    ).toBe(1)
    // A read sends what is held before it, so it sees it; the count of a held write is read on demand.
    expect(
      trips(() =>
        db.transaction(() => {
          insert.run("d", 3)
          expect(count.get()).toEqual({ c: 4 })
          const update = db.prepare("UPDATE t SET n = n + 1 WHERE n >= ?").run(2)
          expect(update.changes).toBe(2)
        }),
      ),
    ).toBe(3)
    // Rolled back before anything went out: no round trip, nothing kept.
    expect(
      trips(() =>
        expect(() =>
          db.transaction(() => {
            insert.run("e", 5)
            throw new Error("undo")
          }),
        ).toThrow("undo"),
      ),
    ).toBe(0)
    expect(db.inTransaction).toBe(false)
    // A held statement that fails does so inside its transaction, at the latest at COMMIT: nothing of it stays.
    const failed = thrown(() =>
      db.transaction(() => {
        insert.run("f", 6)
        insert.run("a", 7)
      }),
    )
    expect(failed.message).toMatch(/duplicate key value violates unique constraint/)
    expect(db.inTransaction).toBe(false)
    // …and inside its savepoint, at the latest at its release: caught there, the rest commits.
    db.transaction(() => {
      insert.run("g", 8)
      expect(() => db.transaction(() => insert.run("a", 9))).toThrow(/duplicate key/)
      insert.run("h", 10)
    })
    expect(
      db
        .prepare("SELECT v, n FROM t ORDER BY v")
        .all()
        .map((row) => `${(row as { v: string }).v}${(row as { n: number }).n}`),
    ).toEqual(["a0", "b1", "c3", "d4", "g8", "h10"])
  })

  it("a statement's error is PostgreSQL's message, with its SQLSTATE", async () => {
    const db = await fresh()
    const error = thrown(() => db.prepare("SELECT * FROM missing").all())
    expect(error).toBeInstanceOf(PostgresError)
    expect(error.message).toBe('relation "missing" does not exist')
    expect((error as PostgresError).code).toBe("42P01")
  })

  it("a wrong password and a refused connection fail naming the URL, never the password", async () => {
    const server = pg.server!
    const wrong = server.url.replace(`:${server.password}@`, ":not-the-password-x9@")
    const refused = server.url.replace(`:${server.port}/`, ":1/")
    for (const [url, reason] of [
      [wrong, /password authentication failed for user "toolbelt"/],
      [refused, /ECONNREFUSED/],
    ] as const) {
      const error = thrown(() => openStore({ url }))
      expect(error.message).toMatch(reason)
      expect(error.message).toMatch(
        /^Could not connect to the toolbelt store postgres:\/\/toolbelt:\*\*\*@127\.0\.0\.1:/,
      )
      for (const secret of [server.password, "not-the-password-x9"]) {
        expect(error.message).not.toContain(secret)
        expect(String(error.stack)).not.toContain(secret)
        expect(String((error.cause as Error | undefined)?.message)).not.toContain(secret)
      }
    }
  })

  it("LISTEN/NOTIFY: payloads reach the main thread; unlisten stops them", async () => {
    const url = await pg.server!.database()
    const db = openPostgres(url)
    const other = openPostgres(url)
    open.push(db, other)
    const got: string[] = []
    const listening = await db.listen("toolbelt_events", (payload) => got.push(payload))
    await other.notify("toolbelt_events", "one")
    other.prepare("SELECT pg_notify(?, ?)").get("toolbelt_events", "two")
    await until(() => got.length === 2)
    expect(got).toEqual(["one", "two"])
    await listening.unlisten()
    await db.notify("toolbelt_events", "three")
    await db.notify("other", "x")
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(got).toEqual(["one", "two"])
  })
})

// Last: these restart the shared server.
pg.describe("the PostgreSQL Database across a server restart", () => {
  it("a statement outside a transaction reconnects; a transaction cut by the restart fails saying so; listeners come back", async () => {
    const url = await pg.server!.database()
    const db = openPostgres(url)
    open.push(db)
    db.exec("CREATE TABLE t (v TEXT)")
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    const heard: string[] = []
    let relistened = 0
    await db.listen(
      "ch",
      (payload) => heard.push(payload),
      () => relistened++,
    )

    await pg.server!.restart()
    expect(insert.run("after restart").changes).toBe(1)

    const error = thrown(() =>
      db.transaction(() => {
        // Reading its count sends it (and the BEGIN held before it): the server has the transaction.
        expect(insert.run("inside").changes).toBe(1)
        pg.server!.halt()
        pg.server!.start()
        insert.run("after the cut")
      }),
    )
    expect(error.message).toMatch(
      /database connection to postgres:\/\/toolbelt:\*\*\*@.* was lost during a transaction/,
    )
    expect(error.message).not.toContain(pg.server!.password)
    expect(db.inTransaction).toBe(false)
    const rows = db.prepare("SELECT v FROM t ORDER BY v").all<{ v: string }>()
    expect(rows.map((row) => row.v)).toEqual(["after restart"])

    // The listening connection was cut twice; a NOTIFY sent while it is down is missed (that is what
    // onListening warns of), so keep notifying until one is heard.
    await until(() => relistened > 0)
    while (heard.length === 0) {
      await db.notify("ch", "back")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(heard[0]).toBe("back")
  }, 60_000)
})
