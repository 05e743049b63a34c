// Liveness of a fleet on one PostgreSQL store (test/fixtures/postgres.ts; skipped, saying why, where none
// can start): an owner whose lease expired is swept once, whoever sweeps, its open calls recorded
// interrupted and its asks withdrawn; a `toolbelt call` SIGKILLed mid-call has its call recorded
// interrupted by another toolbelt within 30 s, and that call is never run again.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"
import { createToolbelt } from "../../src/compose/toolbelt.ts"
import { PROCESS_GONE } from "../../src/platform/store/journal.ts"
import type { ToolPart } from "../../src/platform/store/part.ts"
import { openStore, type Store } from "../../src/platform/store/store.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import { bin, makeProject } from "../serve/helpers.ts"

const pg = await postgresOrSkip()

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function store(url: string): Store {
  const opened = openStore({ url })
  cleanups.push(() => opened.close())
  return opened
}

function running(sessionID: string, callID: string): ToolPart {
  return {
    id: `prt_${callID}`,
    sessionID,
    messageID: "msg_1",
    type: "tool",
    callID,
    tool: "bash",
    state: { status: "running", input: { command: "sleep 60" }, time: { start: 1 } },
  } as ToolPart
}

async function until(what: string, check: () => boolean, timeout: number): Promise<void> {
  const deadline = Date.now() + timeout
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.skipIf(!pg.server)(`liveness on PostgreSQL${pg.server ? "" : ` (${pg.reason})`}`, () => {
  it("an owner whose lease expired is swept once: open calls interrupted, asks and questions withdrawn, row gone", async () => {
    const url = await pg.server!.database()
    const a = store(url)
    const b = store(url)
    const owner = a.db.prepare(
      "INSERT INTO owner (id, pid, host, start, time_started, heartbeat) VALUES (?, 1, 'elsewhere', '0', 0, ?)",
    )
    owner.run("own_gone", Date.now() - 60_000)
    owner.run("own_live", Date.now())
    for (const callID of ["open", "live"]) await a.journal.started(running("ses_1", callID))
    const done = running("ses_1", "done")
    await a.journal.started(done)
    await a.journal.finished({
      ...done,
      state: {
        status: "completed",
        input: {},
        output: "ok",
        title: "",
        metadata: {},
        time: { start: 1, end: 2 },
      },
    } as ToolPart)
    await a.journal.asked({
      id: "per_gone",
      sessionID: "ses_1",
      permission: "bash",
      patterns: ["rm x"],
      always: [],
      metadata: {},
      tool: { messageID: "msg_1", callID: "open" },
    })
    const stamp = a.db.prepare("UPDATE part SET owner = ? WHERE call_id = ?")
    stamp.run("own_gone", "open")
    stamp.run("own_gone", "done")
    stamp.run("own_live", "live")
    a.db.prepare("UPDATE pending_ask SET owner = 'own_gone'").run()
    a.db
      .prepare("INSERT INTO pending_question (id, session_id, data, owner, time) VALUES (?, ?, ?, ?, 0)")
      .run("que_gone", "ses_1", JSON.stringify({ id: "que_gone", sessionID: "ses_1" }), "own_gone")

    // Both sweep; exactly one closes what the dead owner left.
    const first = a.journal.sweep()
    const second = b.journal.sweep()
    expect([...first.interrupted, ...second.interrupted].map((part) => part.callID)).toEqual(["open"])
    expect([...first.asks, ...second.asks]).toEqual([{ id: "per_gone", sessionID: "ses_1" }])
    expect([...first.questions, ...second.questions]).toEqual([{ id: "que_gone", sessionID: "ses_1" }])
    const parts = new Map(b.parts.list("ses_1").map((part) => [part.callID, part]))
    const closed = parts.get("open")!.state
    expect(closed.status === "error" && closed.error).toBe(PROCESS_GONE)
    expect(closed.status === "error" && closed.metadata?.interrupted).toBe(true)
    expect(parts.get("done")!.state.status).toBe("completed")
    expect(parts.get("live")!.state.status).toBe("running")
    expect(b.journal.pendingAsks()).toEqual([])
    expect(b.db.prepare("SELECT id FROM pending_question").all()).toEqual([])
    const kinds = b.journal.entries("ses_1", "open").map((entry) => [entry.kind, entry.data])
    expect(kinds.slice(-2)).toEqual([
      ["decided", { requestID: "per_gone", reply: "reject", withdrawn: true }],
      ["interrupted", expect.objectContaining({ interrupted: true })],
    ])
    const owners = b.db.prepare("SELECT id FROM owner ORDER BY id").all<{ id: string }>()
    expect(owners.map((row) => row.id)).not.toContain("own_gone")
    expect(owners.map((row) => row.id)).toContain("own_live")
    // The interrupted call is reported to its session once, like start-up recovery's.
    expect(b.journal.takeInterrupted("ses_1").map((part) => part.callID)).toEqual(["open"])
  })

  it("a store just opened does not judge others yet: its own lease has not been steady for a lease", async () => {
    const opened = store(await pg.server!.database())
    expect(opened.journal.steady).toBe(false)
  })

  it("a toolbelt killed with SIGKILL mid-call: another toolbelt records the call interrupted within 30 s", async () => {
    const url = await pg.server!.database()
    const a = await makeProject()
    const b = await makeProject()
    cleanups.push(
      () => a.remove(),
      () => b.remove(),
    )
    const watcher = await createToolbelt({ directory: b.dir, env: b.env, store: url, mcp: false })
    cleanups.push(() => watcher.close())
    const input = { command: "sleep 60", description: "waits a minute" }
    // Its own process group: SIGKILL to the group takes the toolbelt and its `sleep`, as a host dying would.
    const child = spawn(
      process.execPath,
      [bin, "call", "bash", JSON.stringify(input), "--yes", "--store", url, "--session", "ses_kill"],
      { cwd: a.dir, env: a.env, detached: true, stdio: "ignore" },
    )
    cleanups.push(() => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {}
    })
    const call = () => internals(watcher).store.parts.list("ses_kill")[0]
    await until("the call runs", () => call()?.state.status === "running", 30_000)
    process.kill(-child.pid!, "SIGKILL")
    const killed = Date.now()

    await until("the call is recorded interrupted", () => call()?.state.status === "error", 40_000)
    const elapsed = Date.now() - killed
    expect(elapsed).toBeLessThan(30_000)
    const state = call()!.state
    expect(state.status === "error" && state.error).toBe(PROCESS_GONE)
    expect(internals(watcher).store.journal.entries("ses_kill").at(-1)?.kind).toBe("interrupted")

    // The same call again, on any instance: answered from its record, never run again.
    const marker = join(b.dir, "ran-again")
    const again = await watcher.call({
      tool: "bash",
      input: { command: `touch ${marker}`, description: "would run it again" },
      sessionID: "ses_kill",
      callID: call()!.callID,
    })
    expect(again.status).toBe("error")
    expect(existsSync(marker)).toBe(false)
    console.log(`fleet liveness: the SIGKILLed call was recorded interrupted ${elapsed} ms after the kill`)
  }, 90_000)
})
