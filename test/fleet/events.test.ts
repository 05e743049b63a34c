// Serve instances sharing one PostgreSQL store (test/fixtures/postgres.ts; skipped, saying why, where
// none can start) stream the fleet's events: a call through one is streamed, listed and journalled by
// another, an event id from one resumes on another, and every subscriber of every instance sees every
// call finish exactly once.
import { hostname } from "node:os"
import { expect, it } from "vitest"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import { api, EventClient, newSession, type StreamEvent } from "../serve/helpers.ts"
import { fleet } from "./fixtures/instances.ts"

const pg = await postgresOrSkip()

const { cleanups, served } = fleet()

/** A serve instance of a project of its own (and a data dir of its own) on the store at `url`. */
const instance = (url: string) => served({ store: url })

async function subscribe(url: string, lastEventID?: string): Promise<EventClient> {
  const client = await EventClient.open(url, lastEventID ? { lastEventID } : {})
  cleanups.push(async () => client.close())
  return client
}

/** A call's final update on a stream. */
const finished = (callID: string) => (event: StreamEvent) =>
  event.type === "message.part.updated" &&
  event.properties.part.callID === callID &&
  event.properties.part.state.status === "completed"

/** A read of hello.txt; `limit` tells a session's calls apart (identical calls would ask `doom_loop`). */
async function call(url: string, session: string, callID: string, limit = 2000) {
  const reply = await api(url, "POST", `/api/sessions/${session}/calls`, {
    tool: "read",
    input: { filePath: "hello.txt", limit },
    callID,
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  expect(reply.body.status).toBe("completed")
}

pg.describe("serve on one PostgreSQL store", () => {
  it("streams, lists and journals a call through A on B, and resumes A's event ids on B", async () => {
    const store = await pg.server!.database()
    const a = await instance(store)
    const b = await instance(store)
    const onA = await subscribe(a.url)
    const onB = await subscribe(b.url)

    const session = await newSession(a.url, "made on A")
    await call(a.url, session, "call_first")
    const seenOnB = await onB.next(finished("call_first"), "A's call on B's stream")
    const seenOnA = await onA.next(finished("call_first"), "A's call on A's stream")
    // One order for the fleet: the same id on both instances.
    expect(seenOnB.id).toBe(seenOnA.id)

    const listed = (await api(b.url, "GET", "/api/sessions")).body as { id: string }[]
    expect(listed.find((entry) => entry.id === session)).toMatchObject({
      host: hostname(),
      projectID: a.project.dir,
      title: "made on A",
    })
    const journal = await api(b.url, "GET", `/api/sessions/${session}/journal`)
    expect(journal.status).toBe(200)
    expect(JSON.stringify(journal.body)).toContain("call_first")
    const detail = await api(b.url, "GET", `/api/sessions/${session}`)
    expect(detail.body.parts).toMatchObject([{ callID: "call_first", state: { status: "completed" } }])

    // An id A gave resumes on B: exactly the events after it.
    const resumeFrom = onA.lastID!
    await call(a.url, session, "call_second", 1)
    await onA.next(finished("call_second"), "the second call on A")
    const resumed = await subscribe(b.url, resumeFrom)
    expect(resumed.events[0]).toMatchObject({ type: "server.connected", properties: { resumed: true } })
    await resumed.next(finished("call_second"), "the second call on B, resumed")
    const afterOnA = onA.bus.slice(onA.bus.findIndex((event) => event.id === resumeFrom) + 1)
    await expect.poll(() => resumed.bus.length).toBeGreaterThanOrEqual(afterOnA.length)
    expect(resumed.bus.slice(0, afterOnA.length).map((event) => event.id)).toEqual(
      afterOnA.map((event) => event.id),
    )
    expect(resumed.bus.map((event) => event.id)).not.toContain(resumeFrom)
  }, 60_000)

  it("gives a subscriber on each of 3 instances all 600 calls (8 sessions × 25 calls × 3 instances), each finished once", async () => {
    const store = await pg.server!.database()
    const instances = [await instance(store), await instance(store), await instance(store)]
    const clients = await Promise.all(instances.map((one) => subscribe(one.url)))
    const sessions = await Promise.all(
      Array.from({ length: 8 }, (_, s) => newSession(instances[s % 3]!.url, `session ${s}`)),
    )
    const expected = new Set<string>()
    await Promise.all(
      sessions.map(async (session, s) => {
        // 25 calls through each instance (8 × 25 × 3 = 600), the instances taking turns.
        for (let c = 0; c < 75; c++) {
          const callID = `call_s${s}c${c}`
          expected.add(callID)
          await call(instances[(s + c) % 3]!.url, session, callID, c + 1)
        }
      }),
    )
    expect(expected.size).toBe(600)
    const completions = (client: EventClient) =>
      client.bus.filter(
        (event) =>
          event.type === "message.part.updated" && event.properties.part.state.status === "completed",
      )
    for (const client of clients) {
      await expect.poll(() => completions(client).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(600)
    }
    for (const client of clients) {
      const calls = completions(client).map((event) => event.properties.part.callID as string)
      expect(calls.length).toBe(600)
      expect(new Set(calls)).toEqual(expected)
      // In order and never twice: the ids' numbers only go up.
      const numbers = client.bus.map((event) => Number(event.id!.split(".").pop()))
      expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true)
      // Within a session, a call's updates come in the order the calls were made.
      const perSession = new Map<string, number>()
      for (const event of completions(client)) {
        const [, s, c] = /^call_s(\d+)c(\d+)$/.exec(event.properties.part.callID)!
        expect(Number(c)).toBeGreaterThan(perSession.get(s!) ?? -1)
        perSession.set(s!, Number(c))
      }
    }
    // Every subscriber saw the same sequence.
    const ids = clients.map((client) => client.bus.map((event) => event.id).join(","))
    expect(new Set(ids).size).toBe(1)
  }, 120_000)
})
