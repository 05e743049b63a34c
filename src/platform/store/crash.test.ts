import { spawn } from "node:child_process"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { describe, expect, it } from "vitest"
import { engines } from "./fixtures/engines.ts"
import { PROCESS_GONE } from "./journal.ts"
import { openStore, type StoreLocation } from "./store.ts"

const writer = join(import.meta.dirname, "fixtures", "crash-writer.ts")

interface Reported {
  asks: string[]
  pending: Set<string>
  running: Set<string>
  finished: Map<string, string>
}

/**
 * Runs the writer in a real child process until it has reported `enough` finished calls, looks at
 * the store while it lives, then SIGKILLs it mid-stream.
 */
async function runAndKill(where: StoreLocation, enough: number, whileAlive: () => void): Promise<Reported> {
  const target = where.url ?? join(where.dataDir!, "toolbelt.db")
  const child = spawn(process.execPath, [writer, target], { stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (chunk) => {
    stderr += chunk
  })
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_, signal) => resolve(signal)),
  )
  const reported: Reported = { asks: [], pending: new Set(), running: new Set(), finished: new Map() }
  let checked = false
  for await (const line of createInterface({ input: child.stdout })) {
    const [kind, callID = "", output = ""] = line.split(" ")
    if (kind === "ask") reported.asks.push(callID)
    if (kind === "pending") reported.pending.add(callID)
    if (kind === "running") reported.running.add(callID)
    if (kind === "finished") reported.finished.set(callID, output)
    if (!checked && reported.finished.size >= enough / 2) {
      checked = true
      whileAlive()
    }
    if (reported.finished.size >= enough) {
      child.kill("SIGKILL")
      break
    }
  }
  const signal = await exited
  if (signal !== "SIGKILL") throw new Error(`writer exited on its own (${signal}): ${stderr}`)
  return reported
}

for (const engine of await engines()) {
  describe(`crash safety (${engine.name})`, () => {
    it("a store whose writer is SIGKILLed mid-stream reopens consistent, and recovery closes what was open", async () => {
      const where = engine.location()
      let recoveredWhileAlive: unknown
      const reported = await runAndKill(where, 400, () => {
        // Another process opening the store while the writer lives must not abort its live calls.
        const peer = openStore(where)
        recoveredWhileAlive = peer.journal.recover()
        peer.close()
      })
      expect(recoveredWhileAlive).toEqual({ interrupted: [], pendingAsks: [] })

      const store = openStore(where)
      try {
        // 1. The file is sound (PostgreSQL checks its own).
        if (engine.name === "sqlite") {
          expect(store.db.prepare("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }])
          expect(store.db.prepare("PRAGMA foreign_key_check").all()).toEqual([])
        }

        // 2. What the writer reported as committed is there, exactly as recorded.
        const before = new Map(
          ["ses_crash_0", "ses_crash_1", "ses_crash_2"]
            .flatMap((s) => store.parts.list(s))
            .map((p) => [p.callID, p]),
        )
        for (const [callID, output] of reported.finished) {
          expect(before.get(callID)?.state).toMatchObject({ status: "completed", output })
        }
        for (const callID of [...reported.pending, ...reported.running]) {
          expect(["pending", "running"]).toContain(before.get(callID)?.state.status)
        }

        // 3. Recovery closes every open call as interrupted, keeping its partial output, and brings
        //    back the pending ask.
        const recovery = store.journal.recover()
        expect(recovery.pendingAsks.map((a) => a.id)).toEqual(reported.asks)
        const open = [...before.values()].filter(
          (p) => p.state.status === "pending" || p.state.status === "running",
        )
        expect(recovery.interrupted.map((p) => p.callID).sort()).toEqual(open.map((p) => p.callID).sort())
        for (const callID of [...reported.pending, ...reported.running]) {
          expect(recovery.interrupted.some((p) => p.callID === callID)).toBe(true)
        }
        for (const part of recovery.interrupted) {
          expect(part.state).toMatchObject({
            status: "error",
            error: PROCESS_GONE,
            metadata: { interrupted: true },
          })
          if (reported.running.has(part.callID)) {
            expect(part.state.status === "error" && part.state.metadata?.output).toMatch(/^line 1 of/)
          }
        }
        expect(store.parts.open()).toEqual([])

        // 4. No half-written rows: every part is final, its status column matches its data, and the
        //    journal agrees with it; every call in the journal has a part.
        const rows = store.db
          .prepare("SELECT session_id, call_id, status, data FROM part")
          .all<{ session_id: string; call_id: string; status: string; data: string }>()
        expect(rows.length).toBe(before.size)
        for (const row of rows) {
          const part = JSON.parse(row.data)
          expect(part.state.status).toBe(row.status)
          expect(["completed", "error"]).toContain(row.status)
          const kinds = store.journal.entries(row.session_id, row.call_id).map((e) => e.kind)
          expect(kinds[0]).toBe("requested")
          expect(kinds.at(-1)).toBe(row.status === "completed" ? "finished" : "interrupted")
          if (kinds.includes("finished")) expect(row.status).toBe("completed")
        }
        const journalled = store.db
          .prepare(
            "SELECT COUNT(DISTINCT session_id || ' ' || call_id) AS n FROM journal WHERE call_id != 'call_ask'",
          )
          .get<{ n: number }>()
        expect(journalled?.n).toBe(rows.length)
      } finally {
        store.close()
      }

      // 5. Reopening again changes nothing more.
      const again = openStore(where)
      expect(again.journal.recover().interrupted).toEqual([])
      expect(again.parts.open()).toEqual([])
      again.close()
    })
  })
}
