// An instance swept while alive (issue 28), on a real PostgreSQL (test/fixtures/postgres.ts; skipped,
// saying why, where none can start): its lease lapses mid-call (here expired in the table, as a long
// pause or a partition would), another instance sweeps it and records its running call interrupted.
// When the call then finishes, the record keeps that history (still interrupted) and adds the late
// result beside it; the caller gets the result; the instance takes a new lease; and the call is never
// run again, on either instance.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"
import { PROCESS_GONE } from "../../src/platform/store/journal.ts"
import type { ToolPart } from "../../src/platform/store/part.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import { fleet } from "./fixtures/instances.ts"

const pg = await postgresOrSkip()

const { instance: opened } = fleet()

/** A library toolbelt of a project of its own on the store at `url`, where bash runs unasked. */
const instance = (url: string) => opened({ store: url, projectConfig: { permission: { bash: "allow" } } })

pg.describe("an instance swept while alive", () => {
  it("keeps the call's interrupted history, records the late result beside it, answers the caller, takes a new lease, never re-runs", async () => {
    const url = await pg.server!.database()
    const a = await instance(url)
    const b = await instance(url)
    const owner = internals(a.toolbelt).store.journal.owner
    const part = () =>
      internals(b.toolbelt)
        .store.parts.list("ses_swept")
        .find((one) => one.callID === "call_late")

    const published: ToolPart[] = []
    a.toolbelt.subscribe("message.part.updated", (event) => {
      if (event.properties.part.callID === "call_late") published.push(event.properties.part)
    })
    const call = a.toolbelt.call({
      tool: "bash",
      input: { command: "sleep 3; echo finished late", description: "outlives its lease" },
      sessionID: "ses_swept",
      callID: "call_late",
    })
    while (part()?.state.status !== "running") await sleep(50)

    // A's lease lapses (its heartbeat 60 s old, as after a long pause) and B sweeps, in one turn of the
    // event loop, so A's own heartbeat timer cannot renew the lease in between.
    internals(b.toolbelt)
      .store.db.prepare("UPDATE owner SET heartbeat = heartbeat - 60000 WHERE id = ?")
      .run(owner)
    const swept = internals(b.toolbelt).store.journal.sweep()
    expect(swept.interrupted.map((one) => one.callID)).toEqual(["call_late"])
    const closed = part()!.state
    expect(closed.status === "error" && closed.error).toBe(PROCESS_GONE)

    // The caller still gets the result.
    const settlement = await call
    expect(settlement.status).toBe("completed")
    expect(settlement.status === "completed" && settlement.output).toContain("finished late")

    // The record keeps what the fleet saw (interrupted) and the late result beside it.
    const recorded = part()!.state
    expect(recorded.status).toBe("error")
    expect(recorded.status === "error" && recorded.error).toBe(PROCESS_GONE)
    expect(recorded.status === "error" && recorded.metadata).toMatchObject({
      interrupted: true,
      finishedAfterSweep: true,
      lateResult: { status: "completed", output: expect.stringContaining("finished late") },
    })
    // And so does what A published: the call's last update is the record, not a plain completion.
    await expect.poll(() => published.at(-1)?.state).toEqual(recorded)
    const kinds = internals(b.toolbelt)
      .store.journal.entries("ses_swept", "call_late")
      .map((entry) => entry.kind)
    expect(kinds.slice(-3)).toEqual(["started", "interrupted", "finished"])
    expect(internals(b.toolbelt).store.journal.entries("ses_swept", "call_late").at(-1)?.data).toMatchObject({
      late: true,
      status: "completed",
    })

    // A noticed at its next heartbeat and took a new lease: it is an owner of the fleet again.
    const leased = () =>
      internals(b.toolbelt).store.db.prepare("SELECT id FROM owner WHERE id = ?").get<{ id: string }>(owner)
    const deadline = Date.now() + 15_000
    while (!leased() && Date.now() < deadline) await sleep(100)
    expect(leased()).toEqual({ id: owner })
    expect(internals(a.toolbelt).store.journal.lapses).toBe(1)

    // The same call again, on either instance: answered from its record, never run again.
    for (const one of [a, b]) {
      const marker = join(one.project.dir, "ran-again")
      const again = await one.toolbelt.call({
        tool: "bash",
        input: { command: `touch ${marker}`, description: "would run it again" },
        sessionID: "ses_swept",
        callID: "call_late",
      })
      expect(again.status).toBe("error")
      expect(existsSync(marker)).toBe(false)
    }
  }, 60_000)
})
