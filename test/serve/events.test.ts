// `GET /events` over real HTTP: a dropped connection resumed with Last-Event-ID loses and repeats
// nothing; per-session filtering; ids from another server run or too old; heartbeats; a client that
// stops reading slows no tool and misses nothing silently.
import { afterEach, describe, expect, it } from "vitest"
import {
  api,
  authFor,
  EventClient,
  newSession,
  parseFrame,
  type Running,
  type StreamEvent,
  seqs,
  startServer,
  until,
} from "./helpers.ts"

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

let reads = 0

/** A read of the project's file, each with another limit: the loop guard never sees a repeated call. */
async function read(url: string, session: string): Promise<void> {
  const input = { filePath: "hello.txt", limit: 1000 + reads++ }
  const reply = await api(url, "POST", `/api/sessions/${session}/calls`, { tool: "read", input })
  expect(reply.body.status).toBe("completed")
}

describe("GET /events", () => {
  it("resumes a dropped connection from Last-Event-ID: every event exactly once, in order", async () => {
    running = await startServer()
    const { url } = running
    const session = await newSession(url)
    const reference = await EventClient.open(url)
    const dropped = await EventClient.open(url)
    expect(dropped.events[0]).toMatchObject({ type: "server.connected", properties: { resumed: false } })

    // Calls run throughout: some before the drop, some while the client is away, some after it is back.
    const calls = (async () => {
      for (let index = 0; index < 30; index++) await read(url, session)
    })()
    await until(() => dropped.bus.length >= 20, "20 events before the drop")
    const cut = dropped.lastID!
    dropped.close()
    const before = dropped.bus.slice(0, dropped.bus.findIndex((event) => event.id === cut) + 1)
    await until(() => reference.bus.length >= before.length + 15, "events while the client is away")

    const resumed = await EventClient.open(url, { lastEventID: cut })
    await calls
    await until(
      () => reference.bus.length >= 90 && resumed.lastID === reference.lastID,
      "the resumed client to catch up",
    )

    expect(resumed.events[0]).toMatchObject({ type: "server.connected", properties: { resumed: true } })
    const seen = [...before, ...resumed.bus].map((event) => event.id)
    expect(seen).toEqual(reference.bus.map((event) => event.id))
    expect(new Set(seen).size).toBe(seen.length)
    // The ids number the events one by one: nothing in between was skipped.
    const numbers = seqs(reference.bus)
    expect(numbers).toEqual(numbers.map((_, index) => numbers[0]! + index))
    // And what the events say is what happened: every call's three steps, the final one completed.
    const finals = reference.bus.filter(
      (event) => event.type === "message.part.updated" && event.properties.part.state.status === "completed",
    )
    expect(finals).toHaveLength(30)
    expect(resumed.events.some((event) => event.type === "server.sync")).toBe(false)
    reference.close()
    resumed.close()
  })

  it("?after= resumes like the header (EventSource reconnections made by the page use it)", async () => {
    running = await startServer()
    const { url } = running
    const session = await newSession(url)
    const first = await EventClient.open(url)
    await read(url, session)
    await until(() => first.bus.length >= 3, "three events")
    const after = first.bus[0]!.id!
    first.close()
    const again = await EventClient.open(url, { query: `?after=${encodeURIComponent(after)}` })
    await until(() => again.bus.length >= 2, "the two events after the first")
    expect(again.bus.map((event) => event.id)).toEqual(first.bus.slice(1, 3).map((event) => event.id))
    again.close()
  })

  it("filters by session: one, several (repeated or comma-separated); ids stay the global ones", async () => {
    running = await startServer()
    const { url } = running
    const [one, two, three] = [await newSession(url), await newSession(url), await newSession(url)]
    const onlyOne = await EventClient.open(url, { query: `?session=${one}` })
    const oneAndTwo = await EventClient.open(url, { query: `?session=${one}&session=${two}` })
    const commas = await EventClient.open(url, { query: `?session=${two},${three}` })
    const everything = await EventClient.open(url)
    for (const session of [one, two, three]) await read(url, session)
    await until(() => everything.bus.length >= 9, "every event")
    await until(
      () => onlyOne.bus.length >= 3 && oneAndTwo.bus.length >= 6 && commas.bus.length >= 6,
      "filtered",
    )
    const sessions = (client: EventClient) =>
      new Set(client.bus.map((event) => event.properties.part.sessionID))
    expect(sessions(onlyOne)).toEqual(new Set([one]))
    expect(sessions(oneAndTwo)).toEqual(new Set([one, two]))
    expect(sessions(commas)).toEqual(new Set([two, three]))
    const ids = new Set(everything.bus.map((event) => event.id))
    for (const event of [...onlyOne.bus, ...commas.bus]) expect(ids.has(event.id)).toBe(true)
    for (const client of [onlyOne, oneAndTwo, commas, everything]) client.close()

    const bad = await api(url, "GET", "/events?session=not%20an%20id")
    expect(bad.status).toBe(400)
  })

  it("an id from another server run starts afresh (resumed: false): the client fetches its state", async () => {
    running = await startServer()
    const stale = await EventClient.open(running.url, { lastEventID: "lz0000000000.42" })
    expect(stale.events[0]).toMatchObject({ type: "server.connected", properties: { resumed: false } })
    const session = await newSession(running.url)
    await read(running.url, session)
    await until(() => stale.bus.length >= 3, "new events")
    expect(seqs(stale.bus)[0]).toBe(1)
    stale.close()
  })

  it("an id older than the events held gets server.sync, then what follows", async () => {
    running = await startServer({ eventCapacity: 5 })
    const { url } = running
    const session = await newSession(url)
    const early = await EventClient.open(url)
    await read(url, session)
    await until(() => early.bus.length >= 3, "the first call's events")
    const old = early.bus[0]!.id!
    early.close()
    for (let index = 0; index < 3; index++) await read(url, session)

    const late = await EventClient.open(url, { lastEventID: old })
    expect(late.events[0]).toMatchObject({ type: "server.connected", properties: { resumed: false } })
    expect(late.events[1]?.type).toBe("server.sync")
    await read(url, session)
    await until(() => late.bus.length >= 3, "the events after the sync")
    // 1 session.created, 4 reads of 3 events each: the next read's first event is the 14th.
    expect(seqs(late.bus)[0]).toBe(14)
    late.close()
  })

  it("sends a heartbeat comment on a quiet stream", async () => {
    running = await startServer({ heartbeatMs: 50 })
    const quiet = await EventClient.open(running.url)
    await until(() => quiet.comments >= 2, "two heartbeats")
    quiet.close()
  })

  it("a client that stops reading slows no call, and when it reads again it misses nothing silently", async () => {
    running = await startServer({ eventCapacity: 50 })
    const { url } = running
    const session = await newSession(url)
    // A big file: each completed read's event carries its bounded output (~50 KB), so the stuck
    // client's socket fills up and its stream stops being pulled.
    await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "write",
      input: { filePath: "big.txt", content: `${"x".repeat(99)}\n`.repeat(2000) },
    })
    const stuck = await fetch(`${url}/events`, { headers: { accept: "text/event-stream", ...authFor(url) } })
    const watcher = await EventClient.open(url)
    const calls = 200
    for (let index = 0; index < calls; index++) {
      const reply = await api(url, "POST", `/api/sessions/${session}/calls`, {
        tool: "read",
        input: { filePath: "big.txt", limit: 2000 + index },
      })
      expect(reply.body.status).toBe("completed")
    }
    await until(() => watcher.bus.length >= calls * 3, "the watcher to see every event")
    expect(running.server.events.size).toBeLessThanOrEqual(50)

    // Reading now: every event up to the last, one by one, except where a server.sync says the
    // events in between are no longer held (the client then fetches its state, and follows on).
    const reader = (stuck.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    const events: StreamEvent[] = []
    let buffer = ""
    const take = async (enough: () => boolean) => {
      while (!enough()) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += decoder.decode(value, { stream: true })
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const parsed = parseFrame(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
          if (parsed && parsed !== "comment") events.push(parsed)
        }
      }
    }
    const synced = () => events.some((event) => event.type === "server.sync")
    await take(() => events.at(-1)?.id === watcher.lastID || synced())
    if (synced()) {
      await read(url, session)
      await until(() => watcher.bus.length >= calls * 3 + 3, "the watcher to see the next call")
      await take(() => events.at(-1)?.id === watcher.lastID)
    }
    await reader.cancel()
    // Contiguous from where the client started, and again after each sync.
    let previous: number | undefined
    for (const event of events) {
      if (event.type === "server.sync") previous = undefined
      if (event.id === undefined) continue
      const seq = Number(event.id.split(".").pop())
      if (previous !== undefined) expect(seq).toBe(previous + 1)
      previous = seq
    }
    expect(events.at(-1)?.id).toBe(watcher.lastID)
    watcher.close()
  }, 120_000)
})
