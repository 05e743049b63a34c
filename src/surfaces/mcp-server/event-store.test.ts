import { type JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"
import { describe, expect, it } from "vitest"
import {
  DEFAULT_REPLAY_BYTES,
  type ReplayLimits,
  ReplayStore,
  relateSends,
  relating,
  type SessionEvents,
} from "./event-store.ts"

const roomy: ReplayLimits = {
  sessionEvents: 100,
  sessionBytes: 1 << 20,
  totalEvents: 1000,
  totalBytes: 1 << 24,
}

/** What the SDK stores first on a POST stream: an id with no message. */
const PRIMING = {} as JSONRPCMessage

function progress(n: number): JSONRPCMessage {
  return { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: n } }
}

function progressWith(n: number, message: string): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: 1, progress: n, message },
  }
}

function result(id: number, text = "done"): JSONRPCMessage {
  return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } }
}

/** Everything the store replays after `eventId`, as [id, message] pairs. */
async function replay(events: SessionEvents, eventId: string): Promise<[string, JSONRPCMessage][]> {
  const sent: [string, JSONRPCMessage][] = []
  await events.replayEventsAfter(eventId, {
    send: async (id, message) => {
      sent.push([id, message])
    },
  })
  return sent
}

describe("SessionEvents: replay", () => {
  it("replays what came after an event on its stream, in order, without the priming event", async () => {
    const events = new ReplayStore(roomy).forSession()
    const primed = await events.storeEvent("post-1", PRIMING)
    const first = await events.storeEvent("post-1", progress(1))
    await events.storeEvent("other", progress(99))
    const second = await events.storeEvent("post-1", progress(2))
    const done = await events.storeEvent("post-1", result(1))

    expect(await events.getStreamIdForEventId(primed)).toBe("post-1")
    expect(await replay(events, primed)).toEqual([
      [first, progress(1)],
      [second, progress(2)],
      [done, result(1)],
    ])
    expect(await replay(events, second)).toEqual([[done, result(1)]])
    expect(await replay(events, done)).toEqual([])
  })

  it("also sends what is stored while it replays (the transport writes live only afterwards)", async () => {
    const events = new ReplayStore(roomy).forSession()
    const primed = await events.storeEvent("post-1", PRIMING)
    await events.storeEvent("post-1", progress(1))
    const sent: JSONRPCMessage[] = []
    await events.replayEventsAfter(primed, {
      send: async (_id, message) => {
        sent.push(message)
        if (sent.length === 1) await events.storeEvent("post-1", result(1))
      },
    })
    expect(sent).toEqual([progress(1), result(1)])
  })

  it("replays at most DEFAULT_REPLAY_BYTES at once, then names no stream of the transport, so the response ends", async () => {
    const events = new ReplayStore({ ...roomy, sessionBytes: 1 << 24 }).forSession()
    const primed = await events.storeEvent("post-1", PRIMING)
    for (let n = 0; n < 40; n++) await events.storeEvent("post-1", progressWith(n, "x".repeat(100_000)))
    const last = await events.storeEvent("post-1", result(1))

    const pieces: number[] = []
    let from = primed
    for (;;) {
      const sent: string[] = []
      let bytes = 0
      const stream = await events.replayEventsAfter(from, {
        send: async (id, message) => {
          sent.push(id)
          bytes += JSON.stringify(message).length
        },
      })
      expect(bytes).toBeLessThanOrEqual(DEFAULT_REPLAY_BYTES)
      pieces.push(sent.length)
      from = sent.at(-1)!
      if (from === last) {
        expect(stream).toBe("post-1")
        break
      }
      expect(stream).not.toBe("post-1")
    }
    expect(pieces.length).toBeGreaterThan(3)
    expect(pieces.reduce((sum, count) => sum + count, 0)).toBe(41)
  })

  it("gives ids that name nothing in another session, and refuses ids it never gave", async () => {
    const store = new ReplayStore(roomy)
    const mine = store.forSession()
    const theirs = store.forSession()
    const id = await theirs.storeEvent("_GET_stream", progress(1))
    await mine.storeEvent("_GET_stream", progress(1))

    expect(await mine.getStreamIdForEventId(id)).toBeUndefined()
    expect(mine.resumption(id)).toBe("unknown")
    await expect(replay(mine, id)).rejects.toThrow(/No stream of this session/)
    const [token] = id.split(".")
    for (const forged of [
      `${token}.7`,
      `${token}.-1`,
      `${token}.x`,
      `${token}.`,
      `${token}.1e0`,
      token!,
      "",
      ".0",
      "0",
    ]) {
      expect(theirs.resumption(forged), forged).toBe("unknown")
    }
    expect(theirs.resumption(id)).toBe("replay")
  })

  it("gives every stream its own unguessable token", async () => {
    const events = new ReplayStore(roomy).forSession()
    const tokens = new Set<string>()
    for (let i = 0; i < 50; i++) tokens.add((await events.storeEvent(`s${i}`, PRIMING)).split(".")[0]!)
    expect(tokens.size).toBe(50)
    for (const token of tokens) expect(token).toMatch(/^[\w-]{22}$/)
  })
})

describe("SessionEvents: bounds", () => {
  it("drops a session's oldest events past its count, and forgets an answered stream left with none", async () => {
    const store = new ReplayStore({ ...roomy, sessionEvents: 3 })
    const events = store.forSession()
    const old = await events.storeEvent("old", PRIMING)
    await events.storeEvent("old", result(1))
    const primed = await events.storeEvent("new", PRIMING)
    const kept = [
      await events.storeEvent("new", progress(1)),
      await events.storeEvent("new", progress(2)),
      await events.storeEvent("new", result(2)),
    ]

    expect(events.events).toBe(3)
    expect(events.resumption(old)).toBe("unknown")
    // The priming event went too, but its stream has events left: the rest replays from it.
    expect(events.resumption(primed)).toBe("replay")
    expect((await replay(events, primed)).map(([id]) => id)).toEqual(kept)
  })

  it("still resumes a running request's stream, and the standalone stream, after their events were dropped", async () => {
    const store = new ReplayStore({ ...roomy, sessionEvents: 2 })
    const events = store.forSession()
    const primed = await relating([9], () => events.storeEvent("post-9", PRIMING))
    const standalone = await relating([], () => events.storeEvent("_GET_stream", progress(1)))
    for (let id = 10; id < 13; id++) await relating([id], () => events.storeEvent(`post-${id}`, result(id)))

    expect(events.events).toBe(2)
    expect(events.resumption(standalone)).toBe("replay")
    expect(await replay(events, standalone)).toEqual([])
    // The call ends: its result replays from the id the client last saw.
    expect(events.resumption(primed)).toBe("replay")
    const done = await relating([9], () => events.storeEvent("post-9", result(9)))
    expect(await replay(events, primed)).toEqual([[done, result(9)]])
  })

  it("drops a session's oldest events past its bytes", async () => {
    const big = "x".repeat(1000)
    const store = new ReplayStore({ ...roomy, sessionBytes: 2500 })
    const events = store.forSession()
    const first = await events.storeEvent("a", result(1, big))
    const second = await events.storeEvent("b", result(2, big))
    const third = await events.storeEvent("c", result(3, big))

    expect(events.bytes).toBeLessThanOrEqual(2500)
    expect([first, second, third].map((id) => events.resumption(id))).toEqual(["unknown", "replay", "replay"])
  })

  it("keeps no event bigger than a bound on its own", async () => {
    const store = new ReplayStore({ ...roomy, sessionBytes: 500 })
    const events = store.forSession()
    const small = await events.storeEvent("a", result(1))
    const huge = await events.storeEvent("b", result(2, "x".repeat(1000)))

    expect(events.resumption(huge)).toBe("unknown")
    expect(events.resumption(small)).toBe("replay")
    expect(store.events).toBe(1)
  })

  it("drops the oldest events of all sessions past the total", async () => {
    const store = new ReplayStore({ ...roomy, totalEvents: 4 })
    const a = store.forSession()
    const b = store.forSession()
    const a1 = await a.storeEvent("a1", result(1))
    const b1 = await b.storeEvent("b1", result(1))
    const a2 = await a.storeEvent("a2", result(2))
    const b2 = await b.storeEvent("b2", result(2))
    const a3 = await a.storeEvent("a3", result(3))

    expect(store.events).toBe(4)
    expect([
      a.resumption(a1),
      b.resumption(b1),
      a.resumption(a2),
      b.resumption(b2),
      a.resumption(a3),
    ]).toEqual(["unknown", "replay", "replay", "replay", "replay"])
    await b.storeEvent("b3", result(3))
    expect(b.resumption(b1)).toBe("unknown")
    expect(a.events + b.events).toBe(4)
  })

  it("drops the oldest events of all sessions past the total bytes", async () => {
    const big = "x".repeat(1000)
    const store = new ReplayStore({ ...roomy, totalBytes: 2500 })
    const a = store.forSession()
    const b = store.forSession()
    const a1 = await a.storeEvent("a1", result(1, big))
    const b1 = await b.storeEvent("b1", result(1, big))
    const a2 = await a.storeEvent("a2", result(2, big))

    expect(store.bytes).toBeLessThanOrEqual(2500)
    expect([a.resumption(a1), b.resumption(b1), a.resumption(a2)]).toEqual(["unknown", "replay", "replay"])
  })

  it("lets go of every event of a session that ended, and keeps nothing after", async () => {
    const store = new ReplayStore(roomy)
    const ended = store.forSession()
    const alive = store.forSession()
    const id = await ended.storeEvent("s", result(1, "x".repeat(5000)))
    await alive.storeEvent("s", result(1))
    const aliveBytes = alive.bytes

    ended.end()
    expect([ended.events, ended.bytes]).toEqual([0, 0])
    expect([store.events, store.bytes]).toEqual([1, aliveBytes])
    expect(ended.resumption(id)).toBe("unknown")
    const late = await ended.storeEvent("s", result(2))
    expect(ended.resumption(late)).toBe("unknown")
    expect(store.events).toBe(1)
  })
})

describe("SessionEvents: cancelled requests", () => {
  it("ends a stream whose requests were all cancelled, and only that one", async () => {
    const events = new ReplayStore(roomy).forSession()
    const cancelled = await relating([5], () => events.storeEvent("post-5", PRIMING))
    const answered = await relating([6], () => events.storeEvent("post-6", PRIMING))
    await relating([6], () => events.storeEvent("post-6", result(6)))
    const standalone = await relating([], () => events.storeEvent("_GET_stream", progress(1)))

    events.cancel(5)
    events.cancel(6)
    events.cancel(7)
    expect(events.resumption(cancelled)).toBe("cancelled")
    expect(events.resumption(answered)).toBe("replay")
    expect(events.resumption(standalone)).toBe("replay")
  })

  it("keeps a batch's stream resumable while one of its requests is still open", async () => {
    const events = new ReplayStore(roomy).forSession()
    const primed = await relating([1, 2], () => events.storeEvent("batch", PRIMING))
    events.cancel(1)
    expect(events.resumption(primed)).toBe("replay")
    events.cancel(2)
    expect(events.resumption(primed)).toBe("cancelled")
  })

  it("does not take a message of the standalone stream, sent while a request is handled, for that request's", async () => {
    const events = new ReplayStore(roomy).forSession()
    const transport = new WebStandardStreamableHTTPServerTransport({ eventStore: events })
    relateSends(transport)
    await transport.start()
    const standalone = await transport.handleRequest(
      new Request("http://127.0.0.1/mcp", { headers: { accept: "text/event-stream" } }),
    )
    const reader = standalone.body!.getReader()
    // A tool call's handler that makes the tools change: `tools/list_changed` goes to the GET stream.
    await relating([5], () =>
      transport.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" } as JSONRPCMessage),
    )
    const written = new TextDecoder().decode((await reader.read()).value)
    const id = /^id: (.+)$/m.exec(written)?.[1]
    expect(id, written).toBeDefined()

    events.cancel(5)
    expect(events.resumption(id!)).toBe("replay")
    await transport.close()
  })
})
