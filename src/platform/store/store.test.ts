import { describe, expect, it } from "vitest"
import type { Todo } from "../../runtime/bus/events.ts"
import { engines, openedStores } from "./fixtures/engines.ts"
import { completed, part, running } from "./fixtures/helpers.ts"
import { IllegalTransitionError } from "./part.ts"
import { openStore, type Store, type StoreLocation } from "./store.ts"

const opened = openedStores()

for (const engine of await engines()) {
  describe(engine.name, () => {
    const open = (where: StoreLocation = engine.location()): Store => opened(where)

    it("closes once, and is disposable", () => {
      const dir = engine.location()
      {
        using store = openStore(dir)
        store.sessions.create({ id: "ses_1", projectID: "/p", agent: "build" })
      }
      const store = open(dir)
      expect(store.sessions.get("ses_1")).toBeDefined()
      store.close()
      store.close()
    })

    describe("sessions", () => {
      it("creates, gets, lists newest first, touches", () => {
        const store = open()
        const a = store.sessions.create({ projectID: "/p", agent: "build", title: "first" }, 1000)
        expect(a.id).toMatch(/^ses_/)
        expect(a).toEqual({
          id: a.id,
          projectID: "/p",
          agent: "build",
          title: "first",
          time: { created: 1000, updated: 1000 },
        })
        const b = store.sessions.create({ id: "ses_b", projectID: "/p", agent: "plan" }, 2000)
        const other = store.sessions.create({ id: "ses_o", projectID: "/q", agent: "build" }, 3000)
        expect(store.sessions.get("ses_b")).toEqual(b)
        expect(store.sessions.get("nope")).toBeUndefined()
        expect(store.sessions.list({ projectID: "/p" }).map((s) => s.id)).toEqual(["ses_b", a.id])
        expect(store.sessions.list().map((s) => s.id)).toEqual(["ses_o", "ses_b", a.id])
        expect(store.sessions.list({ limit: 1 })).toEqual([other])

        expect(store.sessions.touch(a.id, 5000)).toBe(true)
        expect(store.sessions.touch("nope")).toBe(false)
        expect(store.sessions.get(a.id)?.time).toEqual({ created: 1000, updated: 5000 })
        expect(store.sessions.list({ projectID: "/p" })[0]?.id).toBe(a.id)
      })

      it("keeps subagent sessions under their parent; an unknown parent is refused", () => {
        const store = open()
        store.sessions.create({ id: "ses_p", projectID: "/p", agent: "build" })
        const child = store.sessions.create({
          id: "ses_c",
          projectID: "/p",
          agent: "explore",
          parentID: "ses_p",
        })
        expect(child.parentID).toBe("ses_p")
        expect(store.sessions.list({ parentID: "ses_p" })).toEqual([child])
        expect(() => store.sessions.create({ projectID: "/p", agent: "x", parentID: "ses_missing" })).toThrow(
          /FOREIGN KEY/i,
        )
        expect(() => store.sessions.create({ id: "ses_p", projectID: "/p", agent: "x" })).toThrow(/UNIQUE/i)
      })

      it("keeps a subagent session's permission rules (just the rules), and none for other sessions", () => {
        const dir = engine.location()
        {
          using store = openStore(dir)
          store.sessions.create({ id: "ses_p", projectID: "/p", agent: "build" })
          const rule = { permission: "task", pattern: "*", action: "deny" as const }
          const withSource = { ...rule, source: { origin: "config", key: "permission.task" } }
          store.sessions.create({
            id: "ses_c",
            projectID: "/p",
            agent: "explore",
            parentID: "ses_p",
            title: "find it (@explore subagent)",
            permission: [withSource, { permission: "edit", pattern: "*.md", action: "deny" }],
          })
        }
        const reopened = open(dir)
        expect(reopened.sessions.get("ses_c")).toMatchObject({
          parentID: "ses_p",
          title: "find it (@explore subagent)",
          permission: [
            { permission: "task", pattern: "*", action: "deny" },
            { permission: "edit", pattern: "*.md", action: "deny" },
          ],
        })
        expect(reopened.sessions.get("ses_p")?.permission).toBeUndefined()
      })

      it("remove deletes the session, its subagents and everything recorded for them", async () => {
        const store = open()
        store.sessions.create({ id: "ses_p", projectID: "/p", agent: "build" })
        store.sessions.create({ id: "ses_c", projectID: "/p", agent: "explore", parentID: "ses_p" })
        store.sessions.create({ id: "ses_keep", projectID: "/p", agent: "build" })
        for (const sessionID of ["ses_p", "ses_c", "ses_keep"]) {
          store.messages.put({ sessionID, role: "user", data: { text: "hi" } })
          await store.journal.requested(part("call_1", undefined, sessionID))
          store.readLedger.record(sessionID, "/p/a.ts", { hash: "h", mtime: 1, size: 1 })
          store.todos.set(sessionID, [todo("t1")])
          store.sessionAgents.set(sessionID, "plan")
          await store.journal.asked(ask(`per_${sessionID}`, sessionID))
        }
        expect(store.sessions.remove("ses_p")).toBe(true)
        expect(store.sessions.remove("ses_p")).toBe(false)
        for (const sessionID of ["ses_p", "ses_c"]) {
          expect(store.sessions.get(sessionID)).toBeUndefined()
          expect(store.messages.list(sessionID)).toEqual([])
          expect(store.parts.list(sessionID)).toEqual([])
          expect(store.journal.entries(sessionID)).toEqual([])
          expect(store.readLedger.list(sessionID)).toEqual([])
          expect(store.todos.get(sessionID)).toEqual([])
          expect(store.sessionAgents.get(sessionID)).toBeUndefined()
          expect(store.journal.pendingAsks(sessionID)).toEqual([])
        }
        expect(store.sessionAgents.get("ses_keep")).toBe("plan")
        expect(store.messages.list("ses_keep")).toHaveLength(1)
        expect(store.parts.list("ses_keep")).toHaveLength(1)
        expect(store.journal.pendingAsks("ses_keep")).toHaveLength(1)
      })
    })

    describe("messages", () => {
      it("stores JSON bodies in order and replaces by id", () => {
        const store = open()
        store.sessions.create({ id: "ses_1", projectID: "/p", agent: "build" })
        const first = store.messages.put({ sessionID: "ses_1", role: "user", data: { text: "hi" } }, 1)
        store.messages.put({ id: "msg_2", sessionID: "ses_1", role: "assistant", data: ["a", 1] }, 2)
        expect(first.id).toMatch(/^msg_/)
        expect(store.messages.list("ses_1").map((m) => m.data)).toEqual([{ text: "hi" }, ["a", 1]])
        const replaced = store.messages.put(
          { id: "msg_2", sessionID: "ses_1", role: "assistant", data: "b" },
          9,
        )
        expect(replaced).toEqual({ id: "msg_2", sessionID: "ses_1", role: "assistant", data: "b", time: 2 })
        expect(() => store.messages.put({ sessionID: "ses_missing", role: "user", data: 1 })).toThrow(
          /FOREIGN KEY/i,
        )
      })
    })

    describe("parts", () => {
      it("upserts, gets, lists in first-stored order, and lists open parts", () => {
        const store = open()
        store.parts.upsert(part("b"))
        store.parts.upsert(part("a", running()))
        store.parts.upsert(part("c", completed()))
        store.parts.upsert(part("x", undefined, "ses_other"))
        expect(store.parts.list("ses_test").map((p) => p.callID)).toEqual(["b", "a", "c"])
        expect(store.parts.get("ses_test", "a")?.state).toEqual(running())
        expect(store.parts.get("ses_test", "missing")).toBeUndefined()
        expect(store.parts.open().map((p) => p.callID)).toEqual(["b", "a", "x"])
        expect(store.parts.open("ses_other").map((p) => p.callID)).toEqual(["x"])

        const done = store.parts.upsert(part("b", completed("out")))
        expect(done.state.status).toBe("completed")
        expect(store.parts.open("ses_test").map((p) => p.callID)).toEqual(["a"])
      })

      it("keeps an output with NUL characters exactly (PostgreSQL's TEXT cannot hold them)", () => {
        const store = open()
        const output = "bin\u0000ary\u0000"
        store.parts.upsert(part("n", completed(output)))
        expect(store.parts.get("ses_test", "n")?.state).toEqual(completed(output))
      })

      it("only moves a part forward and keeps its stored identity", () => {
        const store = open()
        store.parts.upsert(part("a", running()))
        expect(() => store.parts.upsert(part("a"))).toThrow(IllegalTransitionError)
        const moved = store.parts.upsert({ ...part("a", completed()), id: "prt_other", tool: "read" })
        expect(moved.id).toBe("prt_ses_test_a")
        expect(moved.tool).toBe("bash")
        expect(() => store.parts.upsert(part("a", completed("again")))).toThrow(IllegalTransitionError)
        expect(store.parts.get("ses_test", "a")).toEqual(moved)
      })
    })

    describe("approvals", () => {
      it("adds, lists per project, removes, and survives a restart", () => {
        const dir = engine.location()
        const store = open(dir)
        const a = store.approvals.add({ projectID: "/p", permission: "bash", pattern: "git status*" })
        const b = store.approvals.add({ projectID: "/p", permission: "edit", pattern: "src/*" })
        store.approvals.add({ projectID: "/q", permission: "bash", pattern: "ls*" })
        expect(a.id).toMatch(/^apr_/)
        expect(store.approvals.list("/p")).toEqual([a, b])
        store.close()

        const again = open(dir)
        expect(again.approvals.list("/p")).toEqual([a, b])
        expect(again.approvals.remove(a.id)).toBe(true)
        expect(again.approvals.remove(a.id)).toBe(false)
        expect(again.approvals.list("/p")).toEqual([b])
        expect(again.approvals.list("/q")).toHaveLength(1)
      })

      it("saving the same approval twice returns the one already saved", () => {
        const store = open()
        const first = store.approvals.add({ projectID: "/p", permission: "bash", pattern: "npm test" })
        const second = store.approvals.add({ projectID: "/p", permission: "bash", pattern: "npm test" })
        expect(second).toEqual(first)
        expect(store.approvals.list("/p")).toHaveLength(1)
      })
    })

    describe("approvals seen by other connections", () => {
      it("a list read again reflects what another connection (another process) added or revoked", () => {
        const dir = engine.location()
        const here = open(dir)
        const there = open(dir)
        expect(here.approvals.list("/p")).toEqual([])
        const added = there.approvals.add({ projectID: "/p", permission: "bash", pattern: "make*" })
        expect(here.approvals.list("/p")).toEqual([added])
        expect(here.approvals.list("/p")).toEqual([added])
        there.approvals.remove(added.id)
        expect(here.approvals.list("/p")).toEqual([])
        here.close()
        there.close()
      })

      it("an approval added inside a transaction that rolls back is not listed afterwards", () => {
        const store = open()
        expect(() =>
          store.db.transaction(() => {
            store.approvals.add({ projectID: "/p", permission: "bash", pattern: "rm*" })
            expect(store.approvals.list("/p")).toHaveLength(1)
            throw new Error("undo")
          }),
        ).toThrow("undo")
        expect(store.approvals.list("/p")).toEqual([])
        store.close()
      })

      it("a caller changing a listed approval does not change the next list", () => {
        const store = open()
        store.approvals.add({ projectID: "/p", permission: "bash", pattern: "ls*" })
        const listed = store.approvals.list("/p")
        ;(listed[0] as { pattern: string }).pattern = "*"
        expect(store.approvals.list("/p")[0]?.pattern).toBe("ls*")
        store.close()
      })
    })

    describe("readLedger", () => {
      it("records, replaces, gets and forgets per session", () => {
        const store = open()
        const entry = store.readLedger.record("ses_1", "/p/a.ts", { hash: "h1", mtime: 1.5, size: 10 }, 100)
        expect(entry).toEqual({
          sessionID: "ses_1",
          path: "/p/a.ts",
          hash: "h1",
          mtime: 1.5,
          size: 10,
          time: 100,
        })
        expect(store.readLedger.get("ses_1", "/p/a.ts")).toEqual(entry)
        expect(store.readLedger.get("ses_2", "/p/a.ts")).toBeUndefined()
        store.readLedger.record("ses_1", "/p/a.ts", { hash: "h2", mtime: 2, size: 11 }, 200)
        expect(store.readLedger.get("ses_1", "/p/a.ts")?.hash).toBe("h2")
        store.readLedger.record("ses_1", "/p/b.ts", { hash: "h3", mtime: 3, size: 12 })
        expect(store.readLedger.list("ses_1").map((e) => e.path)).toEqual(["/p/a.ts", "/p/b.ts"])
        expect(store.readLedger.forget("ses_1", "/p/a.ts")).toBe(true)
        expect(store.readLedger.forget("ses_1", "/p/a.ts")).toBe(false)
        expect(store.readLedger.get("ses_1", "/p/a.ts")).toBeUndefined()
      })

      it("a stamp costs no commit of its own: it commits with the journal's next step, and other connections see it then", async () => {
        const where = engine.location()
        const store = open(where)
        const peer = openStore(where)
        try {
          const pending = part("call_r", undefined, "ses_r")
          await store.journal.requested(pending)
          const commits = store.journal.commits
          const entry = store.readLedger.record(
            "ses_r",
            "/p/read.ts",
            { hash: "stat:1:2", mtime: 2, size: 1 },
            100,
          )
          await store.journal.started({
            ...pending,
            state: { status: "running", input: {}, time: { start: 1 } },
          })
          expect(store.journal.commits - commits).toBe(1)
          expect(peer.readLedger.get("ses_r", "/p/read.ts")).toEqual(entry)
          expect(store.readLedger.get("ses_r", "/p/read.ts")).toEqual(entry)
        } finally {
          peer.close()
        }
      })

      it("this store sees its own stamps before they commit", () => {
        const store = open()
        store.readLedger.record("ses_s", "/p/a.ts", { hash: "h", mtime: 1, size: 1 })
        expect(store.readLedger.get("ses_s", "/p/a.ts")?.hash).toBe("h")
        expect(store.readLedger.list("ses_s")).toHaveLength(1)
      })

      it("an unchanged file read again writes nothing; a new stamp, a forget or a removed session write again", () => {
        const store = open()
        const stamp = { hash: "h", mtime: 1.25, size: 3 }
        store.sessions.create({ id: "ses_u", projectID: "/p", agent: "build" })
        store.readLedger.record("ses_u", "/p/u.ts", stamp, 100)
        // The same stamp: the row keeps the first time it was recorded.
        store.readLedger.record("ses_u", "/p/u.ts", stamp, 200)
        expect(store.readLedger.get("ses_u", "/p/u.ts")?.time).toBe(100)
        store.readLedger.record("ses_u", "/p/u.ts", { ...stamp, mtime: 2 }, 300)
        expect(store.readLedger.get("ses_u", "/p/u.ts")).toMatchObject({ mtime: 2, time: 300 })
        store.readLedger.forget("ses_u", "/p/u.ts")
        store.readLedger.record("ses_u", "/p/u.ts", stamp, 400)
        expect(store.readLedger.get("ses_u", "/p/u.ts")?.time).toBe(400)
        store.sessions.remove("ses_u")
        expect(store.readLedger.get("ses_u", "/p/u.ts")).toBeUndefined()
        store.readLedger.record("ses_u", "/p/u.ts", stamp, 500)
        expect(store.readLedger.get("ses_u", "/p/u.ts")?.time).toBe(500)
      })

      it("a row another process dropped is written again after one lookup finds it gone", () => {
        const where = engine.location()
        const store = open(where)
        const peer = openStore(where)
        try {
          const stamp = { hash: "h", mtime: 1, size: 1 }
          store.readLedger.record("ses_p", "/p/p.ts", stamp, 100)
          // A lookup here commits the deferred stamp, so the peer sees it.
          expect(store.readLedger.get("ses_p", "/p/p.ts")?.time).toBe(100)
          expect(peer.readLedger.get("ses_p", "/p/p.ts")?.time).toBe(100)
          expect(peer.readLedger.forget("ses_p", "/p/p.ts")).toBe(true)
          // This process still remembers the stamp as recorded: the read is not written...
          store.readLedger.record("ses_p", "/p/p.ts", stamp, 200)
          // ...until a lookup (a write's freshness check) finds the row gone: the next read writes it.
          expect(store.readLedger.get("ses_p", "/p/p.ts")).toBeUndefined()
          store.readLedger.record("ses_p", "/p/p.ts", stamp, 300)
          expect(store.readLedger.get("ses_p", "/p/p.ts")?.time).toBe(300)
          expect(peer.readLedger.get("ses_p", "/p/p.ts")?.time).toBe(300)
        } finally {
          peer.close()
        }
      })
    })

    describe("todos", () => {
      it("replaces the whole list, keeping order", () => {
        const store = open()
        expect(store.todos.get("ses_1")).toEqual([])
        store.todos.set("ses_1", [todo("b"), todo("a"), todo("c")])
        expect(store.todos.get("ses_1").map((t) => t.id)).toEqual(["b", "a", "c"])
        store.todos.set("ses_1", [todo("z", "completed")])
        expect(store.todos.get("ses_1")).toEqual([todo("z", "completed")])
        store.todos.set("ses_1", [])
        expect(store.todos.get("ses_1")).toEqual([])
      })

      it("survive a restart: another store opened on the same file reads the same list", () => {
        const dir = engine.location()
        const first = openStore(dir)
        first.todos.set("ses_1", [todo("b"), todo("a", "in_progress")])
        first.todos.set("ses_2", [todo("c", "completed")])
        first.close()
        const second = open(dir)
        expect(second.todos.get("ses_1")).toEqual([todo("b"), todo("a", "in_progress")])
        expect(second.todos.get("ses_2")).toEqual([todo("c", "completed")])
      })
    })

    describe("session agents", () => {
      it("keeps the agent a session runs as, replaced by each switch, across a restart", () => {
        const dir = engine.location()
        const first = openStore(dir)
        expect(first.sessionAgents.get("ses_1")).toBeUndefined()
        first.sessionAgents.set("ses_1", "plan")
        first.sessionAgents.set("ses_2", "plan")
        first.sessionAgents.set("ses_2", "build")
        first.close()
        const second = open(dir)
        expect(second.sessionAgents.get("ses_1")).toBe("plan")
        expect(second.sessionAgents.get("ses_2")).toBe("build")
      })
    })
  })
}

function todo(id: string, status: Todo["status"] = "pending"): Todo {
  return { id, content: `do ${id}`, status, priority: "medium" }
}

function ask(id: string, sessionID: string) {
  return {
    id,
    sessionID,
    permission: "bash",
    patterns: ["rm -rf build"],
    always: ["rm *"],
    metadata: {},
    tool: { messageID: "msg_test", callID: "call_1" },
  }
}
