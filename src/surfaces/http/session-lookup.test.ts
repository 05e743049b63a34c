// Serve's session lookups (remembered rows, session-index.ts) against two instances sharing one store,
// on each engine (two `toolbelt serve` on one PostgreSQL: two hosts of a fleet; on SQLite, one data
// dir): a session deleted on B is refused by A's API and runs nothing there; a session made on B is
// found by A at once; a session whose runtime state ended (`endSession`, what an MCP client's goodbye
// does) still takes calls.
import { describe, expect, it } from "vitest"
import { fleet } from "../../../test/fleet/fixtures/instances.ts"
import { api } from "../../../test/serve/helpers.ts"
import { internals } from "../../compose/internals.ts"
import { engines } from "../../platform/store/fixtures/engines.ts"
import { ROW_FRESH_MS } from "./session-index.ts"

const { served } = fleet()

const instance = (store: { dataDir?: string; url?: string }) =>
  served({ store: store.url, ...(store.dataDir ? { dataDir: store.dataDir } : {}) })

const read = { tool: "read", input: { filePath: "hello.txt" } }

for (const engine of await engines()) {
  describe(`session lookups across instances (${engine.name})`, () => {
    async function pair() {
      const location = engine.location()
      const store = location.url ? { url: location.url } : { dataDir: location.dataDir! }
      return { a: await instance(store), b: await instance(store) }
    }

    it("a session deleted on B is refused on A (404) and nothing runs there", async () => {
      const { a, b } = await pair()
      const made = await api(a.url, "POST", "/api/sessions", { title: "doomed" })
      const id = made.body.id as string
      const first = await api(a.url, "POST", `/api/sessions/${id}/calls`, read)
      expect(first.status).toBe(200)
      expect(first.body.status).toBe("completed")

      expect(internals(b.toolbelt).store.sessions.remove(id)).toBe(true)
      // A remembers a row at most this long without reading the store again.
      await new Promise((resolve) => setTimeout(resolve, ROW_FRESH_MS))
      const after = await api(a.url, "POST", `/api/sessions/${id}/calls`, read)
      expect(after.status).toBe(404)
      expect(after.body.error).toContain(`Session not found: ${id}`)
      expect((await api(a.url, "GET", `/api/sessions/${id}`)).status).toBe(404)
      // Nothing was recorded for it since, and it did not come back.
      expect(internals(b.toolbelt).store.parts.list(id)).toEqual([])
      expect(internals(b.toolbelt).store.sessions.get(id)).toBeUndefined()
    })

    it("a session made on B is found on A at once, even after A was asked for it before it existed", async () => {
      const { a, b } = await pair()
      const id = "ses_madeOnB000000000000000000"
      expect((await api(a.url, "POST", `/api/sessions/${id}/calls`, read)).status).toBe(404)
      internals(b.toolbelt).store.sessions.create({ id, projectID: a.project.dir, agent: "build" })
      const called = await api(a.url, "POST", `/api/sessions/${id}/calls`, read)
      expect(called.status).toBe(200)
      expect(called.body.status).toBe("completed")
    })

    it("a session whose runtime state ended still takes calls", async () => {
      const { a } = await pair()
      const id = (await api(a.url, "POST", "/api/sessions", { title: "ended" })).body.id as string
      expect((await api(a.url, "POST", `/api/sessions/${id}/calls`, read)).status).toBe(200)
      await a.toolbelt.endSession(id)
      const again = await api(a.url, "POST", `/api/sessions/${id}/calls`, read)
      expect(again.status).toBe(200)
      expect(again.body.status).toBe("completed")
    })
  })
}
