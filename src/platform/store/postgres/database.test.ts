import { afterEach, expect, it } from "vitest"
import { postgresOrSkip } from "../../../../test/fixtures/postgres.ts"
import { isPostgres, openPostgres, type PostgresDatabase } from "./database.ts"

const pg = await postgresOrSkip()
const open: PostgresDatabase[] = []
afterEach(() => {
  for (const db of open.splice(0)) db.close()
})

async function fresh(): Promise<PostgresDatabase> {
  const db = openPostgres(await pg.server!.database())
  open.push(db)
  return db
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
  })
})
