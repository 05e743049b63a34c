import { describe, expect, it } from "vitest"
import { type EndReason, SessionTable } from "./session-table.ts"

/** A session that records its end. */
function session() {
  const ended = Promise.withResolvers<void>()
  let ends = 0
  return {
    ended: ended.promise,
    get ends() {
      return ends
    },
    async end() {
      ends++
      ended.resolve()
    },
  }
}

function table(idleMs: number, maxSessions = 10) {
  const endings: [string, EndReason][] = []
  const sessions = new SessionTable<ReturnType<typeof session>>({
    idleMs,
    maxSessions,
    onEnd: (id, reason) => endings.push([id, reason]),
  })
  return { sessions, endings }
}

const HOUR = 3_600_000

describe("SessionTable", () => {
  it("ends a session nobody uses, and remembers why", async () => {
    const { sessions, endings } = table(1)
    const a = session()
    sessions.add("a", a)
    await a.ended
    expect(sessions.get("a")).toBeUndefined()
    expect(sessions.size).toBe(0)
    expect(sessions.endedBecause("a")).toBe("expired")
    expect(endings).toEqual([["a", "expired"]])
  })

  it("never expires a session while a response of it is being sent; the clock starts when it ends", async () => {
    const { sessions } = table(5)
    const a = session()
    sessions.add("a", a)
    const release = sessions.use("a")
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(a.ends).toBe(0)
    expect(sessions.get("a")).toBe(a)
    release()
    release() // a second release changes nothing
    await a.ended
    expect(sessions.endedBecause("a")).toBe("expired")
  })

  it("makes room by ending the longest idle session", () => {
    const { sessions, endings } = table(HOUR, 2)
    const [a, b, c] = [session(), session(), session()]
    sessions.add("a", a)
    sessions.add("b", b)
    sessions.use("a")() // a was used after b
    sessions.add("c", c)
    expect(endings).toEqual([["b", "evicted"]])
    expect([sessions.get("a"), sessions.get("b"), sessions.get("c")]).toEqual([a, undefined, c])
    expect(b.ends).toBe(1)
    expect(sessions.endedBecause("b")).toBe("evicted")
  })

  it("evicts a session with nothing in flight before one a client is waiting on", () => {
    const { sessions, endings } = table(HOUR, 2)
    sessions.add("a", session())
    sessions.add("b", session())
    sessions.use("a") // a call of a is running; b was used later but is idle
    sessions.add("c", session())
    expect(endings).toEqual([["b", "evicted"]])
  })

  it("ends a session once, by whichever comes first", async () => {
    const { sessions, endings } = table(HOUR)
    const a = session()
    sessions.add("a", a)
    await sessions.end("a", "deleted")
    await sessions.end("a", "expired")
    expect(a.ends).toBe(1)
    expect(endings).toEqual([["a", "deleted"]])
    expect(sessions.endedBecause("a")).toBe("deleted")
    expect(sessions.endedBecause("never")).toBeUndefined()
  })

  it("ends every session on endAll", async () => {
    const { sessions } = table(HOUR)
    const all = [session(), session(), session()]
    for (const [index, one] of all.entries()) sessions.add(String(index), one)
    await sessions.endAll()
    expect(all.map((one) => one.ends)).toEqual([1, 1, 1])
    expect(sessions.size).toBe(0)
  })
})
