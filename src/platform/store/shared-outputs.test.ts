import { describe, expect, it } from "vitest"
import { engines, openedStores } from "./fixtures/engines.ts"
import { completed, part, running } from "./fixtures/helpers.ts"
import { SHARED_OUTPUT_CHARS } from "./parts.ts"
import { openStore, type Store, type StoreLocation } from "./store.ts"

// Long outputs are stored once by content (part_output) and named by the parts that returned them.
const opened = openedStores()

const long = (label: string) =>
  `${label}\n${"line of a file that an agent reads again and again\n".repeat(200)}`

for (const engine of await engines()) {
  describe(engine.name, () => {
    const open = (where: StoreLocation = engine.location()): Store => opened(where)
    const count = (store: Store, sql: string) => Number(store.db.prepare(sql).get<{ n: number }>()?.n)
    const outputs = (store: Store) => count(store, "SELECT count(*) AS n FROM part_output")

    it("keeps one copy of an output many calls returned, and gives each call the whole of it", () => {
      const store = open()
      const text = long("same")
      expect(text.length).toBeGreaterThanOrEqual(SHARED_OUTPUT_CHARS)
      for (const session of ["ses_a", "ses_b"])
        for (const call of ["c1", "c2", "c3"]) {
          store.parts.upsert(part(call, running(), session))
          store.parts.upsert(part(call, completed(text), session))
        }
      expect(outputs(store)).toBe(1)
      expect(
        count(store, "SELECT count(*) AS n FROM part WHERE output IS NULL AND output_digest IS NOT NULL"),
      ).toBe(6)
      expect(store.parts.get("ses_b", "c2")?.state).toMatchObject({ status: "completed", output: text })
      expect(
        store.parts.list("ses_a").map((p) => (p.state.status === "completed" ? p.state.output : "")),
      ).toEqual([text, text, text])
    })

    it("keeps short outputs and outputs holding NUL in the part's own row", () => {
      const store = open()
      store.parts.upsert(part("short", completed("ok")))
      const withNul = `${long("nul")}\u0000end`
      store.parts.upsert(part("nul", completed(withNul)))
      expect(outputs(store)).toBe(0)
      expect(store.parts.get("ses_test", "short")?.state).toMatchObject({ output: "ok" })
      expect(store.parts.get("ses_test", "nul")?.state).toMatchObject({ output: withNul })
    })

    it("reads a running part that later completes with a stored output, and open parts have none", () => {
      const store = open()
      store.parts.upsert(part("c1", running()))
      expect(store.parts.open("ses_test").map((p) => p.callID)).toEqual(["c1"])
      store.parts.upsert(part("c1", completed(long("late"))))
      expect(store.parts.open("ses_test")).toEqual([])
      expect(store.parts.get("ses_test", "c1")?.state).toMatchObject({ output: long("late") })
    })

    it("drops an output when the last session naming it is removed, not before", () => {
      const store = open()
      const shared = long("shared")
      const own = long("own")
      for (const session of ["ses_a", "ses_b"]) {
        store.sessions.create({ id: session, projectID: "/p", agent: "build" })
        store.parts.upsert(part("c1", completed(shared), session))
      }
      store.parts.upsert(part("c2", completed(own), "ses_a"))
      expect(outputs(store)).toBe(2)

      expect(store.sessions.remove("ses_a")).toBe(true)
      expect(outputs(store)).toBe(1)
      expect(store.parts.get("ses_b", "c1")?.state).toMatchObject({ output: shared })

      expect(store.sessions.remove("ses_b")).toBe(true)
      expect(outputs(store)).toBe(0)
    })

    it("stores an output again once another store removed it, for the next call that returns it", () => {
      const where = engine.location()
      const mine = open(where)
      const other = open(where)
      const text = long("again")
      mine.sessions.create({ id: "ses_a", projectID: "/p", agent: "build" })
      mine.parts.upsert(part("c1", completed(text), "ses_a"))
      // Another process removes the only session naming it: the output goes with it.
      expect(other.sessions.remove("ses_a")).toBe(true)
      expect(outputs(mine)).toBe(0)
      // This store wrote it before, yet the next part to return it stores it again.
      mine.parts.upsert(part("c2", completed(text), "ses_b"))
      expect(outputs(mine)).toBe(1)
      expect(other.parts.get("ses_b", "c2")?.state).toMatchObject({ status: "completed", output: text })
    })

    it("keeps the outputs through a reopen of the store", () => {
      const where = engine.location()
      const text = long("kept")
      {
        const store = openStore(where)
        store.parts.upsert(part("c1", completed(text)))
        store.close()
      }
      expect(open(where).parts.get("ses_test", "c1")?.state).toMatchObject({ output: text })
    })
  })
}
