import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { postgresOrSkip } from "../../../test/fixtures/postgres.ts"
import { tempDirs } from "./fixtures/helpers.ts"
import { MIGRATIONS, type Migration, migrate, SchemaTooNewError, schemaVersion } from "./migrations.ts"
import { openPostgres } from "./postgres/database.ts"
import { type Database, openDatabase } from "./sqlite.ts"
import { openStore } from "./store.ts"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

const TABLES = [
  "ask_reply",
  "event",
  "interrupted_call",
  "journal",
  "mcp_pin",
  "message",
  "output",
  "output_chunk",
  "owner",
  "part",
  "part_output",
  "pending_ask",
  "pending_question",
  "permission_approval",
  "read_ledger",
  "session",
  "session_agent",
  "session_seen",
  "store_identity",
  "todo",
]

function tables(db: ReturnType<typeof openDatabase>): string[] {
  return db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all<{ name: string }>()
    .map((row) => row.name)
}

/** A read call's pending part in session ses_1. */
function pendingRead(callID: string) {
  return {
    id: `prt_${callID}`,
    sessionID: "ses_1",
    messageID: "msg_1",
    type: "tool" as const,
    callID,
    tool: "read",
    state: { status: "pending" as const, input: {}, raw: "" },
  }
}

describe("migrate", () => {
  it("creates every table on a fresh database and records the version", () => {
    const db = openDatabase(join(dirs.make(), "toolbelt.db"))
    expect(schemaVersion(db)).toBe(0)
    expect(migrate(db)).toEqual({ from: 0, to: MIGRATIONS.length })
    expect(tables(db)).toEqual(TABLES)
    expect(schemaVersion(db)).toBe(MIGRATIONS.length)
    db.close()
  })

  it("is a no-op on reopen, and keeps the data", () => {
    const dir = dirs.make()
    const first = openStore({ dataDir: dir })
    first.sessions.create({ id: "ses_1", projectID: "/p", agent: "build" })
    first.close()
    const db = openDatabase(join(dir, "toolbelt.db"))
    expect(migrate(db)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length })
    db.close()
    const second = openStore({ dataDir: dir })
    expect(second.sessions.get("ses_1")?.projectID).toBe("/p")
    second.close()
  })

  it("refuses a database written by a newer toolbelt, without touching it", () => {
    const path = join(dirs.make(), "toolbelt.db")
    const db = openDatabase(path)
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`)
    db.close()
    let error: unknown
    try {
      openStore({ path })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(SchemaTooNewError)
    expect((error as SchemaTooNewError).found).toBe(MIGRATIONS.length + 1)
    expect((error as SchemaTooNewError).known).toBe(MIGRATIONS.length)
    expect((error as Error).message).toMatch(/newer toolbelt.*upgrade toolbelt/s)
    const after = openDatabase(path)
    expect(tables(after)).toEqual([])
    expect(schemaVersion(after)).toBe(MIGRATIONS.length + 1)
    after.close()
  })

  it("applies migrations in order, each with its version bump, and stops at one that fails", () => {
    const db = openDatabase(join(dirs.make(), "x.db"))
    const applied: number[] = []
    const migrations: Migration[] = [
      { version: 1, name: "a", up: "CREATE TABLE a (x INTEGER)" },
      {
        version: 2,
        name: "b",
        up: (conn) => {
          applied.push(schemaVersion(conn))
          conn.exec("INSERT INTO a VALUES (1)")
        },
      },
      {
        version: 3,
        name: "c",
        up: (conn) => {
          conn.exec("CREATE TABLE c (x INTEGER)")
          throw new Error("broken migration")
        },
      },
    ]
    expect(() => migrate(db, migrations)).toThrow("broken migration")
    expect(applied).toEqual([1]) // migration 2 ran after 1 was recorded
    expect(schemaVersion(db)).toBe(2)
    expect(tables(db)).toEqual(["a"]) // 3's table was rolled back with it
    expect(migrate(db, migrations.slice(0, 2))).toEqual({ from: 2, to: 2 })
    db.close()
  })

  it("rejects a migration list with a gap", () => {
    const db = openDatabase(":memory:")
    expect(() => migrate(db, [{ version: 2, name: "x", up: "" }])).toThrow(/expected 1/)
    db.close()
  })
})

describe("part output column (v3)", () => {
  const part = (status: "running" | "completed", output = "") => ({
    id: "prt_1",
    sessionID: "ses_1",
    messageID: "msg_1",
    type: "tool" as const,
    callID: "call_1",
    tool: "read",
    state:
      status === "running"
        ? { status, input: { filePath: "a" }, time: { start: 1 } }
        : { status, input: { filePath: "a" }, output, title: "a", metadata: {}, time: { start: 1, end: 2 } },
  })

  it("keeps a completed part's output out of its JSON, and reads the part back whole", () => {
    const store = openStore({ dataDir: dirs.make() })
    const output = `line "one"\n${"x".repeat(50_000)}\n`
    store.parts.upsert(part("running"))
    store.parts.upsert(part("completed", output))
    // A long output is stored once by content (v12), named by the part.
    const row = store.db
      .prepare("SELECT p.data, o.text AS output FROM part p JOIN part_output o ON o.digest = p.output_digest")
      .get<{ data: string; output: string }>()
    expect(row?.output).toBe(output)
    expect(JSON.parse(row!.data).state.output).toBe("")
    expect(store.parts.get("ses_1", "call_1")?.state).toMatchObject({ status: "completed", output })
    expect(store.parts.list("ses_1")[0]?.state).toMatchObject({ output })
    expect(store.journal.settled("ses_1", "call_1")?.state).toMatchObject({ output })
    store.close()
  })

  it("reads a part stored before v12, its long output in the part's own row", () => {
    const path = join(dirs.make(), "toolbelt.db")
    const old = openDatabase(path)
    migrate(old, MIGRATIONS.slice(0, 11))
    const output = "y".repeat(10_000)
    const stored = part("completed", output)
    old
      .prepare(
        `INSERT INTO part (id, session_id, message_id, call_id, tool, status, data, output, time_created, time_updated)
         VALUES ('prt_1', 'ses_1', 'msg_1', 'call_1', 'read', 'completed', ?, ?, 1, 2)`,
      )
      .run(JSON.stringify({ ...stored, state: { ...stored.state, output: "" } }), output)
    old.close()
    const store = openStore({ path })
    expect(store.parts.get("ses_1", "call_1")).toEqual(stored)
    store.close()
  })

  it("reads a part stored before the column, its output still in the JSON", () => {
    const path = join(dirs.make(), "toolbelt.db")
    const old = openDatabase(path)
    migrate(old, MIGRATIONS.slice(0, 2))
    const stored = part("completed", "from version 2")
    old
      .prepare(
        `INSERT INTO part (id, session_id, message_id, call_id, tool, status, data, time_created, time_updated)
         VALUES ('prt_1', 'ses_1', 'msg_1', 'call_1', 'read', 'completed', ?, 1, 2)`,
      )
      .run(JSON.stringify(stored))
    old.close()
    const store = openStore({ path })
    expect(store.parts.get("ses_1", "call_1")).toEqual(stored)
    store.close()
  })
})

describe("parts in an explicit order (v8)", () => {
  it("an existing store of version 7 opens, its parts keep their order, and new ones come after", () => {
    const path = join(dirs.make(), "toolbelt.db")
    const old = openDatabase(path)
    migrate(old, MIGRATIONS.slice(0, 7))
    const insert = old.prepare(
      `INSERT INTO part (id, session_id, message_id, call_id, tool, status, data, time_created, time_updated)
       VALUES (?, 'ses_1', 'msg_1', ?, 'read', 'running', ?, 1, 1)`,
    )
    for (const callID of ["call_z", "call_a", "call_m"]) {
      const stored = {
        id: `prt_${callID}`,
        sessionID: "ses_1",
        messageID: "msg_1",
        type: "tool",
        callID,
        tool: "read",
        state: { status: "running", input: {}, time: { start: 1 } },
      }
      insert.run(`prt_${callID}`, callID, JSON.stringify(stored))
    }
    old.close()
    const store = openStore({ path })
    expect(schemaVersion(store.db)).toBe(MIGRATIONS.length)
    store.parts.upsert(pendingRead("call_b"))
    expect(store.parts.list("ses_1").map((p) => p.callID)).toEqual(["call_z", "call_a", "call_m", "call_b"])
    expect(store.parts.open().map((p) => p.callID)).toEqual(["call_z", "call_a", "call_m", "call_b"])
    store.close()
  })

  it("an existing store of version 12 keeps its journal's numbers, and numbers new entries after them without sqlite_sequence", async () => {
    const path = join(dirs.make(), "toolbelt.db")
    const old = openDatabase(path)
    migrate(old, MIGRATIONS.slice(0, 12))
    const append = old.prepare(
      "INSERT INTO journal (seq, session_id, call_id, kind, data, time) VALUES (?, 'ses_1', ?, ?, '{}', 1)",
    )
    append.run(5, "call_a", "requested")
    append.run(9, "call_a", "finished")
    old.close()
    const store = openStore({ path })
    expect(schemaVersion(store.db)).toBe(MIGRATIONS.length)
    const definition = store.db
      .prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'journal'")
      .get<{ sql: string }>()!.sql
    expect(definition).not.toMatch(/AUTOINCREMENT/i)
    await store.journal.requested(pendingRead("call_b"))
    const seqs = store.db
      .prepare("SELECT seq, call_id FROM journal ORDER BY seq")
      .all<{ seq: number; call_id: string }>()
    expect(seqs).toEqual([
      { seq: 5, call_id: "call_a" },
      { seq: 9, call_id: "call_a" },
      { seq: 10, call_id: "call_b" },
    ])
    expect(
      store.db
        .prepare("SELECT count(*) AS n FROM sqlite_sequence WHERE name = 'journal'")
        .get<{ n: number }>()!.n,
    ).toBe(0)
    expect(
      store.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'journal'").all(),
    ).toEqual([{ name: "journal_call" }])
    store.close()
  })
})

const pg = await postgresOrSkip()

pg.describe("migrate on PostgreSQL", () => {
  const pgTables = (db: Database) =>
    db
      .prepare(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name",
      )
      .all<{ name: string }>()
      .map((row) => row.name)

  it("creates every table on a fresh database, keeps the version in a table, and is a no-op on reopen", async () => {
    const url = await pg.server!.database()
    const db = openPostgres(url)
    try {
      expect(schemaVersion(db)).toBe(0)
      expect(migrate(db)).toEqual({ from: 0, to: MIGRATIONS.length })
      expect(pgTables(db)).toEqual([...TABLES, "toolbelt_schema"].sort())
      expect(db.prepare("SELECT version FROM toolbelt_schema").all()).toEqual([
        { version: MIGRATIONS.length },
      ])
      expect(migrate(db)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length })
    } finally {
      db.close()
    }
    const store = openStore({ url })
    store.sessions.create({ id: "ses_1", projectID: "/p", agent: "build" })
    store.close()
    const again = openStore({ url })
    expect(again.sessions.get("ses_1")?.projectID).toBe("/p")
    again.close()
  })

  it("refuses a database written by a newer toolbelt, naming the URL without its password", async () => {
    const url = await pg.server!.database()
    openStore({ url }).close()
    const db = openPostgres(url)
    db.prepare("UPDATE toolbelt_schema SET version = ?").run(MIGRATIONS.length + 1)
    db.close()
    let error: unknown
    try {
      openStore({ url })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(SchemaTooNewError)
    expect((error as Error).message).toMatch(/newer toolbelt.*another database/s)
    expect((error as Error).message).toContain(":***@")
    expect((error as Error).message).not.toContain(pg.server!.password)
  })

  it("many processes opening the same new database at once: one migrates, every one opens", async () => {
    const url = await pg.server!.database()
    const dir = dirs.make()
    const go = join(dir, "go")
    const fixture = join(import.meta.dirname, "fixtures", "open-at-once.ts")
    const runs = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, [fixture, url, go], { stdio: ["ignore", "ignore", "pipe"] })
      let err = ""
      child.stderr.on("data", (chunk) => (err += chunk))
      return new Promise<{ code: number | null; err: string }>((done) =>
        child.on("close", (code) => done({ code, err })),
      )
    })
    writeFileSync(go, "")
    const results = await Promise.all(runs)
    expect(results.filter((result) => result.code !== 0)).toEqual([])
    const store = openStore({ url })
    expect(schemaVersion(store.db)).toBe(MIGRATIONS.length)
    expect(store.sessions.list()).toHaveLength(6)
    store.close()
  }, 120_000)
})
