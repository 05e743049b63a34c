// A call's final write cut by a lost connection (issue 28), on a real PostgreSQL (test/fixtures/postgres.ts;
// skipped, saying why, where none can start). A proxy between the store and the server cuts the store's
// connection at an exact point of a group-commit batch: before its COMMIT reached the server, after the
// server committed but before the answer came back (the outcome the client cannot know), and at a
// statement before the COMMIT. In every case the write's promise resolves, the call is recorded
// completed, and its final journal entry is there exactly once: nothing is left `running`, nothing
// applied twice.
import { afterEach, expect, it } from "vitest"
import { completed, part, running } from "../../src/platform/store/fixtures/helpers.ts"
import { openPostgres } from "../../src/platform/store/postgres/database.ts"
import { openStore, type Store } from "../../src/platform/store/store.ts"
import { type CutAt, type CutProxy, cutProxy, postgresOrSkip, simpleQuery } from "../fixtures/postgres.ts"

const pg = await postgresOrSkip()

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const COMMIT = simpleQuery("COMMIT")
/** The worker's question for the transaction's id, sent with the statement before the COMMIT. */
const BEFORE_COMMIT = Buffer.from("txid_current_if_assigned")

/** A store reaching a fresh database through a cutting proxy, and one reading it directly. */
async function stores(): Promise<{ proxy: CutProxy; store: Store; direct: Store }> {
  const url = await pg.server!.database()
  const proxy = await cutProxy(url)
  cleanups.push(() => proxy.close())
  const store = openStore({ url: proxy.url })
  cleanups.push(() => store.close())
  const direct = openStore({ url })
  cleanups.push(() => direct.close())
  return { proxy, store, direct }
}

/** Starts calls `ids` on `store`: each is `running` in the database. */
async function start(store: Store, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await store.journal.requested(part(id))
    await store.journal.started(part(id, running()))
  }
}

/** What the database holds for a call: its state and how many `finished` entries it has. */
function recorded(direct: Store, id: string) {
  const entries = direct.journal.entries("ses_test", id)
  return {
    status: direct.parts.get("ses_test", id)?.state.status,
    finished: entries.filter((entry) => entry.kind === "finished").length,
  }
}

const cases: { name: string; marker: Buffer; at: CutAt }[] = [
  { name: "before the COMMIT reached the server", marker: COMMIT, at: "before" },
  { name: "after the server committed, its answer lost", marker: COMMIT, at: "after" },
  { name: "at a statement before the COMMIT", marker: BEFORE_COMMIT, at: "before" },
]

pg.describe("a group commit cut around its COMMIT", () => {
  for (const { name, marker, at } of cases) {
    it(`one call's final write, cut ${name}: recorded completed, once`, async () => {
      const { proxy, store, direct } = await stores()
      await start(store, ["call_1"])
      const cut = proxy.cut(marker, at)
      const finished = await store.journal.finished(part("call_1", completed("out")))
      await cut
      expect(finished.state.status).toBe("completed")
      expect(recorded(direct, "call_1")).toEqual({ status: "completed", finished: 1 })
      // The store goes on on its new connection.
      await start(store, ["call_2"])
      await store.journal.finished(part("call_2", completed("out")))
      expect(recorded(direct, "call_2")).toEqual({ status: "completed", finished: 1 })
    }, 60_000)

    it(`a batch of three calls' final writes, cut ${name}: each recorded completed, once`, async () => {
      const { proxy, store, direct } = await stores()
      const ids = ["call_a", "call_b", "call_c"]
      await start(store, ids)
      const cut = proxy.cut(marker, at)
      const commits = store.journal.commits
      const settled = await Promise.all(ids.map((id) => store.journal.finished(part(id, completed(id)))))
      await cut
      expect(settled.map((one) => one.state.status)).toEqual(["completed", "completed", "completed"])
      // One batch: the three shared the transaction that was cut (and, cut before it committed, its rerun).
      expect(store.journal.commits - commits).toBe(1)
      for (const id of ids) expect(recorded(direct, id), id).toEqual({ status: "completed", finished: 1 })
    }, 60_000)
  }

  it("the database says what became of a COMMIT whose answer was lost: committed, not an error", async () => {
    const url = await pg.server!.database()
    const proxy = await cutProxy(url)
    cleanups.push(() => proxy.close())
    const db = openPostgres(url.replace(/:\d+\//, `:${new URL(proxy.url).port}/`))
    cleanups.push(() => db.close())
    db.exec("CREATE TABLE t (n INTEGER)")
    const insert = db.prepare("INSERT INTO t (n) VALUES (?)")
    const count = db.prepare("SELECT COUNT(*) AS n FROM t")

    const after = proxy.cut(COMMIT, "after")
    db.transaction(() => insert.run(1))
    await after
    expect(count.get<{ n: number }>()?.n).toBe(1)

    // Cut before the server saw it: nothing saved, and the caller is told so (not "unknown").
    const before = proxy.cut(COMMIT, "before")
    let error: { lost?: boolean; unknown?: boolean } | undefined
    try {
      db.transaction(() => insert.run(2))
    } catch (caught) {
      error = caught as typeof error
    }
    await before
    expect(error).toMatchObject({ lost: true, unknown: false })
    expect(count.get<{ n: number }>()?.n).toBe(1)
  }, 60_000)
})
