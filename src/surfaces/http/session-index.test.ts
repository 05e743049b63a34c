// The session index over a real store: sessions that call get a row once, and what it remembers of
// the sessions it saw stays at its bound however many there were. Its lookups stay true to the store
// when another connection (another process, another host of the fleet on PostgreSQL) deletes or
// creates a session, on each engine.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { engines } from "../../platform/store/fixtures/engines.ts"
import { completed, part } from "../../platform/store/fixtures/helpers.ts"
import { openStore, type Store } from "../../platform/store/store.ts"
import { Bus } from "../../runtime/bus/bus.ts"
import { ROW_FRESH_MS, SessionIndex } from "./session-index.ts"

const PROJECT = "/project"

let store: Store | undefined
let index: SessionIndex | undefined
let dir: string | undefined
afterEach(async () => {
  index?.close()
  store?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
  index = undefined
  store = undefined
  dir = undefined
})

async function open(maxKnown?: number): Promise<{ bus: Bus; store: Store; index: SessionIndex }> {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-session-index-"))
  store = openStore({ dataDir: dir })
  const bus = new Bus()
  index = new SessionIndex({ store, bus, projectID: PROJECT, ...(maxKnown ? { maxKnown } : {}) })
  return { bus, store, index }
}

describe("SessionIndex", () => {
  it("remembers at most maxKnown sessions: 500 sessions calling leave it at 100, each with one row", async () => {
    const { bus, store, index } = await open(100)
    for (let n = 0; n < 500; n++)
      bus.publish("message.part.updated", { part: part(`call_${n}`, completed(), `ses_${n}`) })
    await bus.idle()

    expect(index.known).toBe(100)
    expect(store.sessions.list({ projectID: PROJECT })).toHaveLength(500)
  })

  it("a session it forgot gets no second row when it calls again", async () => {
    const { bus, store, index } = await open(2)
    const sessions = ["ses_a", "ses_b", "ses_c", "ses_a"]
    for (const [n, session] of sessions.entries()) {
      bus.publish("message.part.updated", { part: part(`call_${n}`, completed(), session) })
    }
    await bus.idle()

    expect(index.known).toBe(2)
    const rows = store.sessions.list({ projectID: PROJECT }).map((session) => session.id)
    expect(rows.sort()).toEqual(["ses_a", "ses_b", "ses_c"])
  })

  it("sessions created through the API count against the same bound", async () => {
    const { index } = await open(10)
    for (let n = 0; n < 50; n++) index.add(store!.sessions.create({ projectID: PROJECT, agent: "build" }))
    expect(index.known).toBe(10)
  })
})

for (const engine of await engines()) {
  describe(`SessionIndex.get against other connections (${engine.name})`, () => {
    const opened: Array<{ close(): void }> = []
    afterEach(() => {
      for (const one of opened.splice(0).reverse()) one.close()
    })

    /** The index on one connection to a fresh store, another connection ("elsewhere"), and the index's clock. */
    function setUp() {
      const location = engine.location()
      const here = openStore(location)
      const elsewhere = openStore(location)
      const clock = { now: 1_000_000 }
      const index = new SessionIndex({
        store: here,
        bus: new Bus(),
        projectID: PROJECT,
        now: () => clock.now,
      })
      opened.push(here, elsewhere, index)
      return { here, elsewhere, index, clock }
    }

    it("a session deleted elsewhere is refused once its remembered row is ROW_FRESH_MS old", () => {
      const { here, elsewhere, index, clock } = setUp()
      const session = here.sessions.create({ projectID: PROJECT, agent: "build", title: "doomed" })
      index.add(session)
      expect(index.get(session.id)).toEqual(session)

      expect(elsewhere.sessions.remove(session.id)).toBe(true)
      clock.now += ROW_FRESH_MS
      expect(index.get(session.id)).toBeUndefined()
      // And stays refused: nothing remembers it as there.
      clock.now += 1
      expect(index.get(session.id)).toBeUndefined()
    })

    it("marks the sessions whose calls finished updated, together; one deleted elsewhere is dropped by it", async () => {
      const { here, elsewhere, clock } = setUp()
      const bus = new Bus()
      const index = new SessionIndex({ store: here, bus, projectID: PROJECT, now: () => clock.now })
      opened.push(index)
      const [a, b, doomed] = ["ses_a", "ses_b", "ses_doomed"].map((id) => {
        const session = here.sessions.create({ id, projectID: PROJECT, agent: "build" }, clock.now)
        index.add(session)
        return session
      })
      elsewhere.sessions.remove(doomed!.id)
      clock.now += 5000
      for (const session of [a, b, doomed])
        bus.publish("message.part.updated", { part: part(`call_${session!.id}`, completed(), session!.id) })
      await bus.idle()
      await new Promise((resolve) => setImmediate(resolve))

      expect(elsewhere.sessions.get("ses_a")?.time.updated).toBe(clock.now)
      expect(elsewhere.sessions.get("ses_b")?.time.updated).toBe(clock.now)
      // The touch found no row: the lookup says so without waiting for ROW_FRESH_MS, and no row comes back.
      expect(index.get(doomed!.id)).toBeUndefined()
      expect(elsewhere.sessions.get(doomed!.id)).toBeUndefined()
    })

    it("a session not found is not remembered as missing: created elsewhere, it is found at once", () => {
      const { elsewhere, index } = setUp()
      expect(index.get("ses_later")).toBeUndefined()
      const session = elsewhere.sessions.create({ id: "ses_later", projectID: PROJECT, agent: "plan" })
      expect(index.get("ses_later")).toEqual(session)
    })

    it("a session deleted and made again elsewhere under its id is read anew: its new row, not the old one", () => {
      const { here, elsewhere, index, clock } = setUp()
      const first = here.sessions.create({ id: "ses_again", projectID: PROJECT, agent: "build" })
      index.add(first)
      elsewhere.sessions.remove("ses_again")
      const second = elsewhere.sessions.create({ id: "ses_again", projectID: PROJECT, agent: "plan" })
      clock.now += ROW_FRESH_MS
      expect(index.get("ses_again")).toEqual(second)
    })
  })
}
