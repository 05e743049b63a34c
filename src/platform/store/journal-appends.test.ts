import { afterEach, describe, expect, it } from "vitest"
import { tempDirs, watchStatements } from "./fixtures/helpers.ts"
import { GroupCommit } from "./group-commit.ts"
import { JournalAppends } from "./journal-appends.ts"
import type { Database } from "./sqlite.ts"
import { openStore, type Store } from "./store.ts"

const dirs = tempDirs()
const stores: Store[] = []
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  dirs.cleanup()
})

/** A store's connection whose journal inserts are counted: the rows each statement ran with. */
function counted(): { db: Database; statements: number[]; rows: () => string[] } {
  const store = openStore({ dataDir: dirs.make() })
  stores.push(store)
  const statements: number[] = []
  const db = watchStatements(store.db, /^INSERT INTO journal/, (method, values) => {
    if (method === "run") statements.push(values.length / 5)
  })
  const rows = () =>
    store.db
      .prepare("SELECT call_id, kind FROM journal ORDER BY seq")
      .all<{ call_id: string; kind: string }>()
      .map((row) => `${row.call_id}:${row.kind}`)
  return { db, statements, rows }
}

describe("the journal's rows", () => {
  it("of a batch committed together go in one statement, in the order appended", async () => {
    const { db, statements, rows } = counted()
    const group = new GroupCommit(db)
    const appends = new JournalAppends(db, group)
    const steps = ["requested", "started", "finished"]
    await Promise.all(
      ["call_1", "call_2"].flatMap((call) =>
        steps.map((kind) => group.run(() => appends.append("ses", call, kind, "{}", 1))),
      ),
    )
    expect(rows()).toEqual([
      "call_1:requested",
      "call_1:started",
      "call_1:finished",
      "call_2:requested",
      "call_2:started",
      "call_2:finished",
    ])
    expect(statements).toEqual([6])
  })

  it("of a write alone are inserted at once; past the most one statement takes, in several", async () => {
    const { db, statements, rows } = counted()
    const group = new GroupCommit(db)
    const appends = new JournalAppends(db, group)
    await group.run(() => appends.append("ses", "alone", "requested", "{}", 1))
    expect(statements).toEqual([1])
    await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        group.run(() => appends.append("ses", `c${i}`, "requested", "{}", 1)),
      ),
    )
    expect(statements).toEqual([1, 64, 64, 22])
    expect(rows().slice(1)).toEqual(Array.from({ length: 150 }, (_, i) => `c${i}:requested`))
  })

  it("of a batch that failed are dropped with it: applied apart, each is inserted once, the failed write's not at all", async () => {
    const { db, rows } = counted()
    const group = new GroupCommit(db)
    const appends = new JournalAppends(db, group)
    const results = await Promise.allSettled([
      group.run(() => appends.append("ses", "ok_1", "requested", "{}", 1)),
      group.run(() => {
        appends.append("ses", "bad", "requested", "{}", 1)
        throw new Error("this write fails")
      }),
      group.run(() => appends.append("ses", "ok_2", "requested", "{}", 1)),
    ])
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"])
    expect(rows()).toEqual(["ok_1:requested", "ok_2:requested"])
    // A batch together that appends nothing inserts nothing of the failed one's.
    await Promise.all([group.run(() => 1), group.run(() => 2)])
    expect(rows()).toEqual(["ok_1:requested", "ok_2:requested"])
    // The next batch together starts clean.
    await Promise.all([
      group.run(() => appends.append("ses", "next", "requested", "{}", 1)),
      group.run(() => appends.append("ses", "next", "started", "{}", 1)),
    ])
    expect(rows()).toEqual(["ok_1:requested", "ok_2:requested", "next:requested", "next:started"])
  })
})
