// Sessions carry the host and project they were created on, and `GET /api/sessions` filters by both, on
// each engine: SQLite lists this server's project unless asked for another, PostgreSQL the fleet's.
import { hostname } from "node:os"
import { describe, expect, it } from "vitest"
import { engines } from "../../src/platform/store/fixtures/engines.ts"
import { openStore } from "../../src/platform/store/store.ts"
import { api } from "../serve/helpers.ts"
import { fleet } from "./fixtures/instances.ts"

const { served } = fleet()

/** A serve instance of a fresh project on the store at `store` (a data dir or a URL). */
const instance = (store: { dataDir?: string; url?: string }) =>
  served({ store: store.url, ...(store.dataDir ? { dataDir: store.dataDir } : {}) })

for (const engine of await engines()) {
  describe(engine.name, () => {
    it("records the host and project of each session and filters the list by them", async () => {
      const location = engine.location()
      const store = location.url ? { url: location.url } : { dataDir: location.dataDir! }
      const a = await instance(store)
      const b = await instance(store)
      const made = await api(a.url, "POST", "/api/sessions", { title: "through A" })
      expect(made.status).toBe(201)
      expect(made.body).toMatchObject({ host: hostname(), projectID: a.project.dir })
      // A session first seen through a call (the session index makes its row) has them too.
      const called = await b.toolbelt.call({
        tool: "read",
        input: { filePath: "hello.txt" },
        sessionID: "ses_calledThroughB0000000000",
      })
      expect(called.status).toBe("completed")
      const listed = async (url: string, query = "") =>
        (await api(url, "GET", `/api/sessions${query}`)).body as {
          id: string
          host?: string
          projectID: string
        }[]
      await expect
        .poll(async () => (await listed(b.url)).map((session) => session.id))
        .toContain(engine.name === "postgres" ? made.body.id : "ses_calledThroughB0000000000")

      const fromB = await listed(b.url)
      if (engine.name === "postgres") {
        // The fleet's sessions, each with where it came from.
        expect(fromB.find((session) => session.id === made.body.id)).toMatchObject({
          host: hostname(),
          projectID: a.project.dir,
        })
        expect(fromB.find((session) => session.id === "ses_calledThroughB0000000000")).toMatchObject({
          host: hostname(),
          projectID: b.project.dir,
        })
      } else {
        // The embedded store: this server's project only, unless asked for another.
        expect(fromB.map((session) => session.id)).not.toContain(made.body.id)
      }
      const ofA = await listed(b.url, `?project=${encodeURIComponent(a.project.dir)}`)
      expect(ofA.map((session) => session.id)).toEqual([made.body.id])
      const here = await listed(
        b.url,
        `?host=${encodeURIComponent(hostname())}&project=${encodeURIComponent(a.project.dir)}`,
      )
      expect(here.map((session) => session.id)).toEqual([made.body.id])
      expect(await listed(b.url, "?host=elsewhere.example")).toEqual([])

      // The column is in the store, not only in the reply.
      const direct = openStore(location)
      try {
        expect(direct.sessions.get(made.body.id)?.host).toBe(hostname())
        expect(direct.sessions.list({ host: "elsewhere.example" })).toEqual([])
      } finally {
        direct.close()
      }
    }, 60_000)

    it("gives a subagent's session its parent's host", () => {
      const store = openStore(engine.location())
      try {
        store.sessions.create({ id: "ses_parent", projectID: "/p", host: "box-1", agent: "build" })
        const child = store.sessions.create({ projectID: "/p", parentID: "ses_parent", agent: "explore" })
        expect(store.sessions.get(child.id)?.host).toBe("box-1")
        expect(store.sessions.create({ projectID: "/p", agent: "build" }).host).toBeUndefined()
      } finally {
        store.close()
      }
    })
  })
}
