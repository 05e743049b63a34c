import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import type { PermissionAsked } from "../../runtime/bus/events.ts"
import { engines } from "./fixtures/engines.ts"
import { completed, part, running } from "./fixtures/helpers.ts"
import { ABORTED, CallSettledError, INTERRUPTED_RECHECK_MS, interrupt, PROCESS_GONE } from "./journal.ts"
import { IllegalTransitionError } from "./part.ts"
import { openStore, type Store, type StoreLocation } from "./store.ts"

const stores: Store[] = []
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
})

let clock = 1000

function ask(id: string, callID = "call_1", sessionID = "ses_test"): PermissionAsked {
  return {
    id,
    sessionID,
    permission: "bash",
    patterns: ["rm -rf build"],
    always: ["rm *"],
    metadata: { command: "rm -rf build" },
    tool: { messageID: "msg_test", callID },
  }
}

for (const engine of await engines()) {
  describe(engine.name, () => {
    const open = (where: StoreLocation = engine.location()): Store => {
      const store = openStore({ ...where, now: () => clock })
      stores.push(store)
      return store
    }

    describe("journal steps", () => {
      it("writes a call's part row once when its steps share a commit, and journals every step", async () => {
        const store = open()
        const { journal } = store
        const writes = () => {
          if (store.db.engine !== "sqlite") return 1
          return store.db.prepare("SELECT count(*) AS n FROM temp.part_writes").get<{ n: number }>()!.n
        }
        if (store.db.engine === "sqlite") {
          store.db.exec(`CREATE TEMP TABLE part_writes (x INTEGER);
            CREATE TEMP TRIGGER part_inserted AFTER INSERT ON main.part BEGIN INSERT INTO part_writes VALUES (1); END;
            CREATE TEMP TRIGGER part_updated AFTER UPDATE ON main.part BEGIN INSERT INTO part_writes VALUES (1); END;`)
        }
        const commits = journal.commits
        void journal.requested(part("call_1"), { defer: true })
        void journal.started(part("call_1", running(100)), { defer: true })
        const finished = await journal.finished(part("call_1", completed("a\n", 100, 200)))
        expect(journal.commits - commits).toBe(1)
        expect(writes()).toBe(1)
        expect(store.parts.get("ses_test", "call_1")).toEqual(finished)
        expect(journal.entries("ses_test", "call_1").map((entry) => entry.kind)).toEqual([
          "requested",
          "started",
          "finished",
        ])
        // The next step, in a batch of its own, finds the row as written.
        await expect(journal.finished(part("call_1", completed("b\n", 100, 300)))).rejects.toBeInstanceOf(
          CallSettledError,
        )
      })

      it("refuses a second finish of a call in the same commit, its row not yet written", async () => {
        const { journal, parts } = open()
        void journal.requested(part("call_1"), { defer: true })
        const first = journal.finished(part("call_1", completed("a\n", 100, 200)), { defer: true })
        const second = journal.finished(part("call_1", completed("b\n", 100, 300)))
        await expect(first).resolves.toMatchObject({ state: { output: "a\n" } })
        await expect(second).rejects.toBeInstanceOf(CallSettledError)
        expect(parts.get("ses_test", "call_1")?.state).toMatchObject({ status: "completed", output: "a\n" })
      })

      it("keeps the other steps of a commit whose one step fails, rows and entries alike", async () => {
        const store = open()
        const { journal } = store
        await journal.started(part("call_2", running(100)))
        void journal.requested(part("call_1"), { defer: true })
        const again = journal.started(part("call_2", running(150)), { defer: true })
        const finished = journal.finished(part("call_1", completed("a\n", 100, 200)))
        await expect(again).rejects.toBeInstanceOf(IllegalTransitionError)
        await expect(finished).resolves.toMatchObject({ state: { status: "completed" } })
        expect(store.parts.get("ses_test", "call_1")?.state).toMatchObject({
          status: "completed",
          output: "a\n",
        })
        expect(store.parts.get("ses_test", "call_2")?.state).toMatchObject({
          status: "running",
          time: { start: 100 },
        })
        expect(journal.entries("ses_test", "call_1").map((entry) => entry.kind)).toEqual([
          "requested",
          "finished",
        ])
        expect(journal.entries("ses_test", "call_2").map((entry) => entry.kind)).toEqual(["started"])
      })

      it("records a call as it moves, part row and entry together, in order", async () => {
        const store = open()
        const { journal } = store
        clock = 1000
        const requested = await journal.requested(part("call_1"))
        expect(store.parts.get("ses_test", "call_1")).toEqual(requested)
        clock = 1001
        await journal.asked(ask("per_1"))
        clock = 1002
        expect(await journal.decided("per_1", "once")).toBe(true)
        clock = 1003
        const started = await journal.started(part("call_1", running(1003)))
        expect(store.parts.get("ses_test", "call_1")?.state.status).toBe("running")
        clock = 1004
        await journal.progress(part("call_1", running(1003, { title: "ls", metadata: { output: "a\n" } })))
        expect(store.parts.get("ses_test", "call_1")?.state).toEqual(
          running(1003, { title: "ls", metadata: { output: "a\n" } }),
        )
        clock = 1005
        const finished = await journal.finished(part("call_1", completed("a\nb\n", 1003, 1005)))
        expect(store.parts.get("ses_test", "call_1")).toEqual(finished)
        expect(started.id).toBe(requested.id)

        const entries = journal.entries("ses_test", "call_1")
        expect(entries.map((e) => [e.kind, e.time])).toEqual([
          ["requested", 1000],
          ["asked", 1001],
          ["decided", 1002],
          ["started", 1003],
          ["progress", 1004],
          ["finished", 1005],
        ])
        expect(entries.map((e) => e.seq)).toEqual([...entries.map((e) => e.seq)].sort((a, b) => a - b))
        expect(entries[0]?.data).toEqual({
          partID: "prt_ses_test_call_1",
          messageID: "msg_test",
          tool: "bash",
        })
        expect(entries[1]?.data).toEqual(ask("per_1"))
        expect(entries[2]?.data).toEqual({ requestID: "per_1", reply: "once" })
        expect(entries[3]?.data).toEqual({ start: 1003 })
        expect(entries[4]?.data).toEqual({ title: "ls" })
        expect(entries[5]?.data).toEqual({
          status: "completed",
          title: "ls",
          time: { start: 1003, end: 1005 },
        })
        expect(journal.entries("ses_test")).toEqual(entries)
      })

      it("takes each step only with the state it records", async () => {
        const { journal } = open()
        await expect(journal.requested(part("c", running()))).rejects.toThrow(TypeError)
        await expect(journal.started(part("c"))).rejects.toThrow(/takes a running part/)
        await expect(journal.progress(part("c", completed()))).rejects.toThrow(TypeError)
        await expect(journal.finished(part("c", running()))).rejects.toThrow(/completed or error/)
        expect(journal.entries("ses_test")).toEqual([])
      })

      it("refuses a backward move and leaves the call as it was", async () => {
        const store = open()
        await store.journal.started(part("c", running()))
        await expect(store.journal.requested(part("c"))).rejects.toThrow(IllegalTransitionError)
        expect(store.parts.get("ses_test", "c")?.state.status).toBe("running")
        expect(store.journal.entries("ses_test", "c").map((e) => e.kind)).toEqual(["started"])
      })

      it("refuses to start a call that is already running: its side effect may have begun", async () => {
        const store = open()
        await store.journal.started(part("c", running()))
        await expect(store.journal.started(part("c", running(200)))).rejects.toThrow(IllegalTransitionError)
        await store.journal.progress(part("c", running(100, { title: "still going" })))
        expect(store.parts.get("ses_test", "c")?.state).toEqual(running(100, { title: "still going" }))
      })

      it("keeps the stored identity of a call (advance)", async () => {
        const store = open()
        await store.journal.requested(part("c"))
        const moved = await store.journal.started({
          ...part("c", running()),
          id: "prt_other",
          messageID: "msg_x",
        })
        expect(moved.id).toBe("prt_ses_test_c")
        expect(moved.messageID).toBe("msg_test")
      })
    })

    describe("idempotency: a finished call is never run or recorded twice", () => {
      it("refuses a second finished, with the recorded part", async () => {
        const store = open()
        const first = await store.journal.finished(part("c", completed("first")))
        const error = await store.journal.finished(part("c", completed("second"))).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(CallSettledError)
        expect((error as CallSettledError).part).toEqual(first)
        expect((error as Error).message).toMatch(/already finished/)
        expect(store.parts.get("ses_test", "c")).toEqual(first)
        expect(store.journal.entries("ses_test", "c").map((e) => e.kind)).toEqual(["finished"])
      })

      it("refuses starting (or requesting) a finished call again; settled() returns its result", async () => {
        const { journal } = open()
        expect(journal.settled("ses_test", "c")).toBeUndefined()
        await journal.requested(part("c"))
        await journal.started(part("c", running()))
        expect(journal.settled("ses_test", "c")).toBeUndefined()
        const done = await journal.finished(part("c", completed("out")))
        expect(journal.settled("ses_test", "c")).toEqual(done)
        await expect(journal.started(part("c", running()))).rejects.toBeInstanceOf(CallSettledError)
        await expect(journal.requested(part("c"))).rejects.toBeInstanceOf(CallSettledError)
        await expect(journal.progress(part("c", running()))).rejects.toBeInstanceOf(CallSettledError)
      })

      it("settled() commits a call's own queued steps first, and leaves other calls' to their batch", async () => {
        const { journal } = open()
        const before = journal.commits
        const other = journal.requested(part("other"), { defer: true })
        const finished = journal.finished(part("c", completed("out")))
        // Another call's replay check commits nothing: the queued steps still share one batch.
        expect(journal.settled("ses_test", "new")).toBeUndefined()
        expect(journal.commits - before).toBe(0)
        // The call's own queued result is committed, and answers the replay.
        expect(journal.settled("ses_test", "c")?.state).toMatchObject({ status: "completed", output: "out" })
        expect(journal.commits - before).toBe(1)
        await Promise.all([other, finished])
        expect(journal.commits - before).toBe(1)
      })

      it("a deferred step commits with the next step queued, or on its own shortly after", async () => {
        const store = open()
        const before = store.journal.commits
        const requested = store.journal.requested(part("d"), { defer: true })
        const started = store.journal.started(part("d", running()), { defer: true })
        await store.journal.finished(part("d", completed("out")))
        await Promise.all([requested, started])
        expect(store.journal.commits - before).toBe(1)
        expect(store.journal.entries("ses_test", "d").map((entry) => entry.kind)).toEqual([
          "requested",
          "started",
          "finished",
        ])
        // Alone, it does not wait for company for long.
        await store.journal.requested(part("e"), { defer: true })
        expect(store.journal.commits - before).toBe(2)
      })

      it("of two finished steps racing in one batch, exactly one wins", async () => {
        const store = open()
        await store.journal.started(part("c", running()))
        const results = await Promise.allSettled([
          store.journal.finished(part("c", completed("a"))),
          store.journal.finished(part("c", completed("b"))),
        ])
        expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"])
        expect(store.parts.get("ses_test", "c")?.state).toMatchObject({ output: "a" })
      })
    })

    /** Makes the journal refuse entries of call "bad" (a trigger, in each engine's dialect). */
    const refuse = (store: Store) =>
      store.db.exec(
        engine.name === "sqlite"
          ? `CREATE TEMP TRIGGER refuse BEFORE INSERT ON journal WHEN NEW.call_id = 'bad'
             BEGIN SELECT RAISE(ABORT, 'journal refused'); END`
          : `CREATE OR REPLACE FUNCTION refuse_bad() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN IF NEW.call_id = 'bad' THEN RAISE EXCEPTION 'journal refused'; END IF; RETURN NEW; END $$;
             CREATE TRIGGER refuse BEFORE INSERT ON journal FOR EACH ROW EXECUTE FUNCTION refuse_bad()`,
      )

    describe("atomic steps", () => {
      it("a step whose journal entry cannot be written leaves the part row untouched, and others commit", async () => {
        const store = open()
        refuse(store)
        await store.journal
          .requested(part("bad"))
          .then(() => expect.unreachable())
          .catch((error: Error) => expect(error.message).toMatch(/journal refused/))
        expect(store.parts.get("ses_test", "bad")).toBeUndefined()

        await store.journal.requested(part("ok"))
        store.db.exec(engine.name === "sqlite" ? "DROP TRIGGER refuse" : "DROP TRIGGER refuse ON journal")
        await store.journal.requested(part("bad"))
        refuse(store)
        const [good, bad] = await Promise.allSettled([
          store.journal.started(part("ok", running())),
          store.journal.started(part("bad", running())),
        ])
        expect(good.status).toBe("fulfilled")
        expect(bad.status).toBe("rejected")
        expect(store.parts.get("ses_test", "ok")?.state.status).toBe("running")
        expect(store.parts.get("ses_test", "bad")?.state.status).toBe("pending")
        expect(store.journal.entries("ses_test", "bad").map((e) => e.kind)).toEqual(["requested"])
      })
    })

    describe("pending asks", () => {
      it("are kept until decided", async () => {
        const { journal } = open()
        await journal.asked(ask("per_1"))
        await journal.asked(ask("per_2", "call_2", "ses_other"))
        expect(journal.pendingAsks()).toEqual([ask("per_1"), ask("per_2", "call_2", "ses_other")])
        expect(journal.pendingAsks("ses_other")).toEqual([ask("per_2", "call_2", "ses_other")])
        expect(await journal.decided("per_1", "reject")).toBe(true)
        expect(await journal.decided("per_1", "reject")).toBe(false)
        expect(journal.pendingAsks().map((a) => a.id)).toEqual(["per_2"])
        await expect(journal.asked(ask("per_2"))).rejects.toThrow(/UNIQUE/i)
      })
    })

    describe("recover", () => {
      it("closes what a gone owner left open as interrupted, keeping partial metadata", async () => {
        const dir = engine.location()
        const crashed = open(dir)
        clock = 500
        await crashed.journal.requested(part("pending"))
        await crashed.journal.started(
          part("running", running(500, { title: "npm test", metadata: { output: "PASS a" } })),
        )
        await crashed.journal.finished(part("done", completed("ok", 500, 600)))
        await crashed.journal.asked(ask("per_1", "running"))
        crashed.close()

        const store = open(dir)
        clock = 2000
        const recovery = store.journal.recover()
        expect(recovery.interrupted.map((p) => p.callID)).toEqual(["pending", "running"])
        expect(recovery.interrupted[0]?.state).toEqual({
          status: "error",
          input: {},
          error: PROCESS_GONE,
          metadata: { interrupted: true },
          time: { start: 2000, end: 2000 },
        })
        expect(PROCESS_GONE.startsWith(ABORTED)).toBe(true)
        expect(recovery.interrupted[1]?.state).toEqual({
          status: "error",
          input: { command: "ls" },
          error: PROCESS_GONE,
          metadata: { output: "PASS a", interrupted: true },
          time: { start: 500, end: 2000 },
        })
        expect(recovery.pendingAsks).toEqual([ask("per_1", "running")])
        expect(store.parts.get("ses_test", "done")?.state).toEqual(completed("ok", 500, 600))
        expect(store.parts.open()).toEqual([])
        expect(store.journal.entries("ses_test", "running").map((e) => e.kind)).toEqual([
          "started",
          "asked",
          "interrupted",
        ])
        // never run twice: the resumed run finds the call settled
        expect(store.journal.settled("ses_test", "running")).toEqual(recovery.interrupted[1])
        await expect(store.journal.started(part("running", running()))).rejects.toBeInstanceOf(
          CallSettledError,
        )

        // a second recovery finds nothing new; the adopted ask stays pending until decided
        expect(store.journal.recover()).toEqual({ interrupted: [], pendingAsks: [] })
        expect(store.journal.pendingAsks()).toEqual([ask("per_1", "running")])

        // the session is told once: whoever takes its interrupted calls first gets them
        expect(store.journal.takeInterrupted("ses_other")).toEqual([])
        expect(store.journal.takeInterrupted("ses_test")).toEqual(recovery.interrupted)
        expect(store.journal.takeInterrupted("ses_test")).toEqual([])
      })

      it("asks again about a session it found nothing interrupted in once INTERRUPTED_RECHECK_MS passed", async () => {
        const where = engine.location()
        const store = open(where)
        expect(store.journal.takeInterrupted("ses_test")).toEqual([])
        // Another process closed a call of the session as interrupted (its sweep), on its connection.
        const other = open(where)
        const swept = part("swept", interrupt(part("swept", running()), 900, PROCESS_GONE).state)
        other.parts.upsert(swept)
        other.db
          .prepare("INSERT INTO interrupted_call (session_id, call_id, time) VALUES (?, ?, ?)")
          .run("ses_test", "swept", 900)
        expect(store.journal.takeInterrupted("ses_test")).toEqual([])
        await new Promise((done) => setTimeout(done, INTERRUPTED_RECHECK_MS + 50))
        expect(store.journal.takeInterrupted("ses_test").map((p) => p.callID)).toEqual(["swept"])
        expect(store.journal.takeInterrupted("ses_test")).toEqual([])
      })

      it("leaves alone the calls and asks of an owner that is still open", async () => {
        const dir = engine.location()
        const live = open(dir)
        await live.journal.started(part("live", running()))
        await live.journal.asked(ask("per_live", "live"))
        const other = open(dir)
        expect(other.journal.recover()).toEqual({ interrupted: [], pendingAsks: [] })
        expect(other.parts.get("ses_test", "live")?.state.status).toBe("running")
        await live.journal.finished(part("live", completed()))

        await live.journal.started(part("live2", running()))
        expect(other.journal.recover({ all: true }).interrupted.map((p) => p.callID)).toEqual(["live2"])
      })

      it("treats an owner whose process is gone as dead, and one on another host as alive", async () => {
        const dir = engine.location()
        const store = open(dir)
        const exited = spawnSync(process.execPath, ["-e", ""]).pid!
        // A fresh heartbeat: on PostgreSQL an owner elsewhere is alive while its lease holds.
        const insertOwner = store.db.prepare(
          "INSERT INTO owner (id, pid, host, time_started, heartbeat) VALUES (?, ?, ?, 0, ?)",
        )
        insertOwner.run("own_dead", exited, (await import("node:os")).hostname(), Date.now())
        insertOwner.run("own_remote", exited, "some-other-host", Date.now())
        await store.journal.started(part("dead", running()))
        await store.journal.started(part("remote", running()))
        store.db.prepare("UPDATE part SET owner = ? WHERE call_id = ?").run("own_dead", "dead")
        store.db.prepare("UPDATE part SET owner = ? WHERE call_id = ?").run("own_remote", "remote")

        expect(store.journal.recover().interrupted.map((p) => p.callID)).toEqual(["dead"])
        const owners = store.db.prepare("SELECT id FROM owner ORDER BY id").all<{ id: string }>()
        expect(owners.map((o) => o.id)).not.toContain("own_dead")
        expect(owners.map((o) => o.id)).toContain("own_remote")
      })

      it.skipIf(!existsSync("/proc/self/stat"))(
        "treats an owner whose pid now names another process (reused pid) as dead",
        async () => {
          const dir = engine.location()
          const store = open(dir)
          const host = (await import("node:os")).hostname()
          // A live pid (this very process) recorded with another start time: the pid was reused.
          store.db
            .prepare("INSERT INTO owner (id, pid, host, start, time_started) VALUES (?, ?, ?, ?, 0)")
            .run("own_reused", process.ppid, host, "1")
          await store.journal.started(part("reused", running()))
          store.db.prepare("UPDATE part SET owner = ? WHERE call_id = ?").run("own_reused", "reused")
          expect(store.journal.recover().interrupted.map((p) => p.callID)).toEqual(["reused"])
        },
      )
    })

    describe("steps of one call in one batch", () => {
      it("share one commit, and the part ends as the last step left it", async () => {
        const store = open()
        const before = store.journal.commits
        const steps = [
          store.journal.requested(part("call_b")),
          store.journal.started(part("call_b", running(1))),
          store.journal.progress(part("call_b", running(1, { title: "half" }))),
          store.journal.finished(part("call_b", completed("out", 1, 2))),
        ]
        await Promise.all(steps)
        expect(store.journal.commits - before).toBe(1)
        expect(store.parts.get("ses_test", "call_b")?.state).toEqual(completed("out", 1, 2))
        expect(store.journal.entries("ses_test", "call_b").map((entry) => entry.kind)).toEqual([
          "requested",
          "started",
          "progress",
          "finished",
        ])
      })

      it("a later batch reads the row again: what another process did in between counts", async () => {
        const dir = engine.location()
        const store = open(dir)
        await Promise.all([
          store.journal.requested(part("call_c")),
          store.journal.started(part("call_c", running(1))),
        ])
        // Another process closes the call (its owner looked dead to it) between two of our batches.
        const peer = open(dir)
        peer.db.transaction(() => {
          peer.db
            .prepare("UPDATE part SET status = 'error', data = ? WHERE call_id = 'call_c'")
            .run(JSON.stringify(interrupt(part("call_c", running(1)), 5)))
        })
        await expect(store.journal.finished(part("call_c", completed("late", 1, 6)))).rejects.toBeInstanceOf(
          CallSettledError,
        )
      })

      it("a step that fails within the batch leaves the next one to read the row", async () => {
        const store = open()
        await store.journal.requested(part("call_d"))
        const [started, again] = await Promise.allSettled([
          store.journal.started(part("call_d", running(1))),
          store.journal.started(part("call_d", running(2))),
        ])
        expect(started.status).toBe("fulfilled")
        expect(again).toMatchObject({ status: "rejected", reason: expect.any(IllegalTransitionError) })
        await store.journal.finished(part("call_d", completed("done", 1, 3)))
        expect(store.parts.get("ses_test", "call_d")?.state).toEqual(completed("done", 1, 3))
      })
    })
  })
}
