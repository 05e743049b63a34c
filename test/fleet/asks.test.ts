// Asks across a fleet on one PostgreSQL store (test/fixtures/postgres.ts; skipped, saying why, where none
// can start): two serve instances of different project folders; a call on A waits for an ask, B's
// `/api/permissions` (and its library list) shows it, and B's reply reaches A, whose call goes on, or
// fails on reject, as if answered there. Questions the same.
import { describe, expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"
import type { Toolbelt } from "../../src/compose/toolbelt.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import { api } from "../serve/helpers.ts"
import { fleet } from "./fixtures/instances.ts"

const pg = await postgresOrSkip()

const { served } = fleet()

/** A serve instance of a project of its own on the store at `url`, where `bash` asks. */
const instance = (url: string) => served({ store: url, config: { permission: { bash: "ask" } } })

/** The ask of `command` once `url`'s `/api/permissions` lists it. */
async function listed(url: string, command: string): Promise<{ id: string; sessionID: string }> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const reply = await api(url, "GET", "/api/permissions")
    const ask = reply.body.find?.((request: any) => request.metadata?.command === command)
    if (ask) return ask
    if (Date.now() > deadline) throw new Error(`${url} never listed the ask for ${command}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function bash(toolbelt: Toolbelt, command: string, sessionID: string) {
  return toolbelt.call({ tool: "bash", input: { command, description: "says something" }, sessionID })
}

describe.skipIf(!pg.server)(`asks across instances${pg.server ? "" : ` (${pg.reason})`}`, () => {
  it("an ask raised on A is listed by B and answered through B: once goes on, reject fails, always saves", async () => {
    const store = await pg.server!.database()
    const a = await instance(store)
    const b = await instance(store)

    const once = bash(a.toolbelt, "echo answered-elsewhere", "ses_once")
    const ask = await listed(b.url, "echo answered-elsewhere")
    expect(ask.sessionID).toBe("ses_once")
    expect(b.toolbelt.permission.list().map((request) => request.id)).toContain(ask.id)
    const replied = performance.now()
    expect((await api(b.url, "POST", `/api/permissions/${ask.id}/reply`, { reply: "once" })).status).toBe(200)
    const done = await once
    console.log(`fleet asks: A's call finished ${Math.round(performance.now() - replied)} ms after B's reply`)
    expect(done.status).toBe("completed")
    expect(done.status === "completed" && done.output).toContain("answered-elsewhere")
    // Answered: listed nowhere, and a second reply is refused.
    expect((await api(b.url, "GET", "/api/permissions")).body).toEqual([])
    expect((await api(a.url, "GET", "/api/permissions")).body).toEqual([])
    expect((await api(b.url, "POST", `/api/permissions/${ask.id}/reply`, { reply: "once" })).status).toBe(404)

    const rejected = bash(a.toolbelt, "echo refused", "ses_reject")
    const second = await listed(b.url, "echo refused")
    const reply = await api(b.url, "POST", `/api/permissions/${second.id}/reply`, {
      reply: "reject",
      message: "not this one",
    })
    expect(reply.status).toBe(200)
    const failed = await rejected
    expect(failed.status).toBe("error")
    expect(failed.status === "error" && failed.error).toContain("not this one")

    const always = bash(a.toolbelt, "echo always", "ses_always")
    const third = await listed(b.url, "echo always")
    expect((await api(b.url, "POST", `/api/permissions/${third.id}/reply`, { reply: "always" })).status).toBe(
      200,
    )
    expect((await always).status).toBe("completed")
    // Saved by A, for A's project, as a reply given there would.
    expect(
      internals(a.toolbelt)
        .permission.approvals()
        .map((approval) => approval.permission),
    ).toContain("bash")
  }, 60_000)

  it("a question put on A is listed by B and answered (or dismissed) through B", async () => {
    const store = await pg.server!.database()
    const a = await instance(store)
    const b = await instance(store)
    const question = (header: string) => ({
      questions: [
        {
          question: "Which colour?",
          header,
          options: [
            { label: "red", description: "warm" },
            { label: "blue", description: "cold" },
          ],
          custom: false,
        },
      ],
    })
    const pendingOn = async (url: string, header: string) => {
      const deadline = Date.now() + 20_000
      for (;;) {
        const found = (await api(url, "GET", "/api/questions")).body.find?.(
          (request: any) => request.questions[0].header === header,
        )
        if (found) return found as { id: string }
        if (Date.now() > deadline) throw new Error(`${url} never listed the question ${header}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }

    const answered = a.toolbelt.call({ tool: "question", input: question("Colour"), sessionID: "ses_q" })
    const asked = await pendingOn(b.url, "Colour")
    // Answers that do not fit are refused where they are given; the question stays pending.
    const wrong = await api(b.url, "POST", `/api/questions/${asked.id}/reply`, { answers: [["green"]] })
    expect(wrong.status).toBe(400)
    const right = await api(b.url, "POST", `/api/questions/${asked.id}/reply`, { answers: [["blue"]] })
    expect(right.status).toBe(200)
    const done = await answered
    expect(done.status).toBe("completed")
    expect(done.status === "completed" && done.output).toContain("blue")
    expect((await api(b.url, "GET", "/api/questions")).body).toEqual([])

    const dismissed = a.toolbelt.call({ tool: "question", input: question("Dismissed"), sessionID: "ses_q2" })
    const second = await pendingOn(b.url, "Dismissed")
    expect((await api(b.url, "POST", `/api/questions/${second.id}/reject`)).status).toBe(200)
    expect((await dismissed).status).toBe("error")
    expect((await api(a.url, "GET", "/api/questions")).body).toEqual([])
  }, 60_000)

  it("a reply stored without a notification (one missed) is applied by the raising instance's poll", async () => {
    const store = await pg.server!.database()
    const a = await instance(store)
    const waiting = bash(a.toolbelt, "echo polled", "ses_poll")
    const ask = await listed(a.url, "echo polled")
    // As AskReplies.put stores it, but no NOTIFY: only the poll can find it.
    internals(a.toolbelt)
      .store.db.prepare("INSERT INTO ask_reply (request_id, owner, data, time) VALUES (?, ?, ?, ?)")
      .run(
        ask.id,
        internals(a.toolbelt).store.journal.owner,
        JSON.stringify({ requestID: ask.id, reply: "once" }),
        0,
      )
    expect((await waiting).status).toBe("completed")
  }, 30_000)

  it("a reply for an ask no instance holds is refused with 404", async () => {
    const store = await pg.server!.database()
    const b = await instance(store)
    const reply = await api(b.url, "POST", "/api/permissions/per_nothing/reply", { reply: "once" })
    expect(reply.status).toBe(404)
  }, 30_000)
})
