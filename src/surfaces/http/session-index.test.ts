// The session index over a real store: sessions that call get a row once, and what it remembers of
// the sessions it saw stays at its bound however many there were.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { completed, part } from "../../platform/store/fixtures/helpers.ts"
import { openStore, type Store } from "../../platform/store/store.ts"
import { Bus } from "../../runtime/bus/bus.ts"
import { SessionIndex } from "./session-index.ts"

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
    for (let n = 0; n < 50; n++) index.add(`ses_api_${n}`)
    expect(index.known).toBe(10)
  })
})
