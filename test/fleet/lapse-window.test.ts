// The window after an instance's lease lapsed (issue 28), on a real PostgreSQL (test/fixtures/postgres.ts;
// skipped, saying why, where none can start). Instance A's row was swept by B; before A's next beat it
// records a new call. That call must carry a live owner: a store opening meanwhile (its start-up
// recovery) must not close it as interrupted. Two ways A gets its lease back first: the new call's write
// puts the row back in the same transaction (A's beats came on time; the sweeper saw an old heartbeat),
// and, when A's beats have not reached the database for a lease (a stalled process), A beats before
// recording the call.
import { afterEach, expect, it, vi } from "vitest"
import { part, running } from "../../src/platform/store/fixtures/helpers.ts"
import { HEARTBEAT_MS, LEASE_MS } from "../../src/platform/store/owners.ts"
import { openStore, type Store } from "../../src/platform/store/store.ts"
import { monotonicMs } from "../../src/platform/util/clock.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"

const pg = await postgresOrSkip()

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function open(url: string): Store {
  const store = openStore({ url })
  cleanups.push(() => store.close())
  return store
}

/** B sweeps A as the fleet does once A's heartbeat is a minute old; A's row is gone. */
function sweep(a: Store, b: Store): void {
  b.db.prepare("UPDATE owner SET heartbeat = heartbeat - 60000 WHERE id = ?").run(a.journal.owner)
  b.journal.sweep()
  expect(ownerRow(b, a.journal.owner)).toBeUndefined()
}

function ownerRow(store: Store, id: string) {
  return store.db.prepare("SELECT id FROM owner WHERE id = ?").get<{ id: string }>(id)
}

/** A store opening now, as another instance starting: its recovery closes calls of dead owners. */
function recoverElsewhere(url: string): string[] {
  return open(url)
    .journal.recover()
    .interrupted.map((one) => one.callID)
}

pg.describe("a new call in the window after the lease lapsed", () => {
  it("its write takes the lease again: a store opening meanwhile leaves it running; the next beat counts the lapse", async () => {
    const url = await pg.server!.database()
    const a = open(url)
    const b = open(url)
    sweep(a, b)

    await a.journal.requested(part("call_new"))
    await a.journal.started(part("call_new", running()))
    expect(ownerRow(b, a.journal.owner)).toEqual({ id: a.journal.owner })
    expect(recoverElsewhere(url)).toEqual([])
    expect(b.parts.get("ses_test", "call_new")?.state.status).toBe("running")
    expect(b.journal.sweep().interrupted).toEqual([])

    // A's next beat (within HEARTBEAT_MS) sees that its row was taken again and counts the lapse.
    await expect.poll(() => a.journal.lapses, { timeout: HEARTBEAT_MS * 3 }).toBe(1)
  }, 60_000)

  it("after its beats stopped for a lease, it beats before recording the call: a new lease, the lapse counted at once", async () => {
    const url = await pg.server!.database()
    const a = open(url)
    const b = open(url)
    sweep(a, b)
    // A's process stalled past its lease: its clock (process.hrtime, platform/util/clock.ts) moved on,
    // no beat came.
    const later = monotonicMs() + LEASE_MS + 1
    vi.spyOn(process, "hrtime").mockImplementation(() => [
      Math.floor(later / 1e3),
      Math.round((later % 1e3) * 1e6),
    ])

    await a.journal.requested(part("call_after_stall"))
    expect(a.journal.lapses).toBe(1)
    expect(ownerRow(b, a.journal.owner)).toEqual({ id: a.journal.owner })
    expect(recoverElsewhere(url)).toEqual([])
    expect(b.parts.get("ses_test", "call_after_stall")?.state.status).toBe("pending")
  }, 60_000)

  it("a call started before the sweep is still closed as interrupted (the window only protects new calls)", async () => {
    const url = await pg.server!.database()
    const a = open(url)
    const b = open(url)
    await a.journal.requested(part("call_old"))
    await a.journal.started(part("call_old", running()))
    b.db.prepare("UPDATE owner SET heartbeat = heartbeat - 60000 WHERE id = ?").run(a.journal.owner)
    expect(b.journal.sweep().interrupted.map((one) => one.callID)).toEqual(["call_old"])
  }, 60_000)
})
