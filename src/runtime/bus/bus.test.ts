import { afterEach, describe, expect, it, vi } from "vitest"
import type { ToolPart } from "../../platform/store/part.ts"
import { type AnyEvent, Bus, sessionOf } from "./bus.ts"
import type { Event, Publish } from "./events.ts"

const part = (sessionID: string, callID: string): ToolPart => ({
  id: `prt_${callID}`,
  sessionID,
  messageID: "msg_1",
  type: "tool",
  callID,
  tool: "read",
  state: { status: "pending", input: {}, raw: "" },
})

const todo = (n: number) =>
  [{ id: `t${n}`, content: `todo ${n}`, status: "pending", priority: "low" }] as const

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("Bus delivery", () => {
  it("publishes typed events to subscribers of that type only", async () => {
    const bus = new Bus()
    const edited: string[] = []
    const all: string[] = []
    bus.subscribe("file.edited", (event) => {
      edited.push(event.properties.file)
    })
    bus.subscribe("*", (event) => {
      all.push(event.type)
    })
    bus.publish("file.edited", { file: "/a.ts" })
    bus.publish("todo.updated", { sessionID: "s1", todos: todo(1) })
    await bus.idle()
    expect(edited).toEqual(["/a.ts"])
    expect(all).toEqual(["file.edited", "todo.updated"])
  })

  it("publish returns synchronously, before any subscriber runs", async () => {
    const bus = new Bus()
    const seen: string[] = []
    bus.subscribe("*", () => {
      seen.push("handler")
    })
    bus.publish("file.edited", { file: "x" })
    seen.push("after publish")
    await Promise.resolve() // not even a microtask later
    seen.push("after microtask")
    await bus.idle()
    expect(seen).toEqual(["after publish", "after microtask", "handler"])
  })

  it("is usable as a Publish function (bound)", async () => {
    const bus = new Bus()
    const publish: Publish = bus.publish
    const received = bus.once("file.edited")
    publish("file.edited", { file: "bound" })
    expect((await received).properties.file).toBe("bound")
  })

  it("delivers in publish order, overall and per session, even to an async subscriber", async () => {
    const bus = new Bus()
    const overall: number[] = []
    const perSession: Record<string, number[]> = { a: [], b: [] }
    bus.subscribe("todo.updated", async (event) => {
      // Later events finish their async work sooner: order must still hold.
      const n = Number(event.properties.todos[0]!.id.slice(1))
      await new Promise((resolve) => setTimeout(resolve, (100 - n) % 7))
      overall.push(n)
    })
    for (const session of ["a", "b"]) {
      bus.subscribeSession(session, (event) => {
        if (event.type === "todo.updated")
          perSession[session]!.push(Number(event.properties.todos[0]!.id.slice(1)))
      })
    }
    for (let n = 0; n < 40; n++) {
      const session = n % 3 === 0 ? "b" : "a"
      bus.publish("todo.updated", { sessionID: session, todos: todo(n) })
    }
    await bus.idle()
    expect(overall).toEqual(Array.from({ length: 40 }, (_, n) => n))
    expect(perSession.b).toEqual(overall.filter((n) => n % 3 === 0))
    expect(perSession.a).toEqual(overall.filter((n) => n % 3 !== 0))
  })

  it("events published by a subscriber are queued after the current ones", async () => {
    const bus = new Bus()
    const seen: string[] = []
    bus.subscribe("*", (event) => {
      if (event.type !== "file.edited") return
      seen.push(event.properties.file)
      if (event.properties.file === "1") bus.publish("file.edited", { file: "3" })
    })
    bus.publish("file.edited", { file: "1" })
    bus.publish("file.edited", { file: "2" })
    await bus.idle()
    expect(seen).toEqual(["1", "2", "3"])
  })
})

describe("Bus microtask delivery", () => {
  it("runs after the publisher's synchronous code and before the loop's next turn, in order", async () => {
    const bus = new Bus()
    const seen: string[] = []
    bus.subscribe(
      "*",
      (event) => {
        seen.push(event.type === "file.edited" ? event.properties.file : event.type)
      },
      { delivery: "microtask" },
    )
    const macrotask: string[] = []
    bus.subscribe("*", () => {
      macrotask.push("macrotask")
    })
    const nextTurn = new Promise<void>((resolve) =>
      setImmediate(() => {
        seen.push("next turn")
        resolve()
      }),
    )
    bus.publish("file.edited", { file: "a" })
    bus.publish("file.edited", { file: "b" })
    seen.push("after publish")
    bus.publish("file.edited", { file: "c" })
    await Promise.resolve()
    // A default subscriber has seen nothing yet: it waits for the loop's next turn.
    expect(macrotask).toEqual([])
    await nextTurn
    expect(seen).toEqual(["after publish", "a", "b", "c", "next turn"])
    await bus.idle()
    expect(macrotask).toHaveLength(3)
  })

  it("a flood still yields to the loop, then goes on in order; later events join the queue behind it", async () => {
    const bus = new Bus()
    const seen: number[] = []
    bus.subscribe(
      "file.edited",
      (event) => {
        // 20 ms a handler: a slice of the drain (50 ms for a microtask subscriber) ends after a few.
        const until = performance.now() + 20
        while (performance.now() < until) {}
        seen.push(Number(event.properties.file))
      },
      { delivery: "microtask" },
    )
    let deliveredAtNextTurn = -1
    const nextTurn = new Promise<void>((resolve) =>
      setImmediate(() => {
        deliveredAtNextTurn = seen.length
        resolve()
      }),
    )
    for (let i = 0; i < 20; i++) bus.publish("file.edited", { file: String(i) })
    await nextTurn
    // The loop came round before the flood was delivered.
    expect(deliveredAtNextTurn).toBeGreaterThan(0)
    expect(deliveredAtNextTurn).toBeLessThan(20)
    // Published while the rest waits for its turn: delivered after it, never before.
    for (let i = 20; i < 25; i++) bus.publish("file.edited", { file: String(i) })
    await bus.idle()
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i))
  })
})

describe("Bus isolation", () => {
  it("a stuck async subscriber blocks neither publish nor other subscribers", async () => {
    const bus = new Bus()
    const stuck = gate()
    let stuckCalls = 0
    bus.subscribe("*", () => {
      stuckCalls++
      return stuck.promise
    })
    const fast: string[] = []
    bus.subscribe("file.edited", (event) => {
      fast.push(event.properties.file)
    })
    // publish is synchronous and the stuck subscriber never settles: had publish waited for it, this
    // loop would never end (no wall-clock bound needed, so a loaded machine cannot fail it).
    for (let i = 0; i < 100; i++) bus.publish("file.edited", { file: String(i) })
    // Meanwhile, unrelated async work (a tool running) proceeds.
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(fast).toHaveLength(100)
    expect(stuckCalls).toBe(1)
    stuck.open()
    await bus.idle()
    expect(stuckCalls).toBe(100)
  })

  it("a slow synchronous subscriber does not starve timers (the drain yields)", async () => {
    const bus = new Bus()
    bus.subscribe("*", () => {
      const until = performance.now() + 1
      while (performance.now() < until) {}
    })
    // 400 ms of handler work queued at once.
    for (let i = 0; i < 400; i++) bus.publish("file.edited", { file: String(i) })
    const started = performance.now()
    const tick = await new Promise<number>((resolve) => setTimeout(() => resolve(performance.now()), 0))
    expect(tick - started).toBeLessThan(100)
    await bus.idle()
  })

  it("a subscriber that throws (or rejects) is reported and keeps receiving", async () => {
    const errors: unknown[] = []
    const bus = new Bus({ onError: (error) => errors.push(error) })
    const seen: string[] = []
    bus.subscribe("file.edited", async (event) => {
      seen.push(event.properties.file)
      if (event.properties.file === "sync") throw new Error("sync boom")
      if (event.properties.file === "async") await Promise.reject(new Error("async boom"))
    })
    bus.publish("file.edited", { file: "sync" })
    bus.publish("file.edited", { file: "async" })
    bus.publish("file.edited", { file: "fine" })
    await bus.idle()
    expect(seen).toEqual(["sync", "async", "fine"])
    expect(errors.map((error) => (error as Error).message)).toEqual(["sync boom", "async boom"])
  })

  it("by default a throwing subscriber is logged to stderr with the event type", async () => {
    const writes: string[] = []
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      writes.push(String(chunk))
      return true
    })
    const bus = new Bus()
    bus.subscribe("file.edited", () => {
      throw new Error("kaput")
    })
    bus.publish("file.edited", { file: "x" })
    await bus.idle()
    expect(writes.join("")).toMatch(/\[toolbelt:bus\] error subscriber failed .*file\.edited.*kaput/)
  })
})

describe("Bus unsubscribe", () => {
  it("stops delivery, including events already queued", async () => {
    const bus = new Bus()
    const seen: string[] = []
    const unsubscribe = bus.subscribe("file.edited", (event) => {
      seen.push(event.properties.file)
    })
    bus.publish("file.edited", { file: "queued" })
    expect(unsubscribe.pending).toBe(1)
    unsubscribe()
    bus.publish("file.edited", { file: "later" })
    await bus.idle()
    await new Promise((resolve) => setImmediate(resolve))
    expect(seen).toEqual([])
    expect(unsubscribe.closed).toBe(true)
    expect(unsubscribe.reason).toBe("unsubscribed")
    expect(unsubscribe.pending).toBe(0)
    expect(bus.size).toBe(0)
  })

  it("unsubscribing from inside the handler stops the events after the current one", async () => {
    const bus = new Bus()
    const seen: string[] = []
    const unsubscribe = bus.subscribe("file.edited", (event) => {
      seen.push(event.properties.file)
      unsubscribe()
    })
    bus.publish("file.edited", { file: "1" })
    bus.publish("file.edited", { file: "2" })
    await bus.idle()
    expect(seen).toEqual(["1"])
  })

  it("is idempotent, removes only its own subscription, and works with `using`", async () => {
    const bus = new Bus()
    const seen: string[] = []
    const handler = (event: AnyEvent) => {
      seen.push(event.type)
    }
    const first = bus.subscribe("*", handler)
    bus.subscribe("*", handler)
    first()
    first()
    {
      using _scoped = bus.subscribe("*", handler)
      expect(bus.size).toBe(2)
    }
    expect(bus.size).toBe(1)
    bus.publish("file.edited", { file: "x" })
    await bus.idle()
    expect(seen).toEqual(["file.edited"])
  })
})

describe("Bus bounded queues", () => {
  it("drop-oldest keeps the newest events and counts the dropped ones", async () => {
    const bus = new Bus()
    const stuck = gate()
    const seen: string[] = []
    const overflows: number[] = []
    let first = true
    const subscription = bus.subscribe(
      "file.edited",
      async (event) => {
        seen.push(event.properties.file)
        if (first) {
          first = false
          await stuck.promise
        }
      },
      { limit: 3, onOverflow: (info) => overflows.push(info.dropped) },
    )
    bus.publish("file.edited", { file: "0" })
    await new Promise((resolve) => setImmediate(resolve)) // "0" is now being handled (stuck)
    for (let i = 1; i <= 6; i++) bus.publish("file.edited", { file: String(i) })
    expect(subscription.pending).toBe(3)
    expect(subscription.dropped).toBe(3)
    expect(overflows).toEqual([1, 2, 3])
    stuck.open()
    await bus.idle()
    expect(seen).toEqual(["0", "4", "5", "6"])
    expect(subscription.closed).toBe(false)
  })

  it("the default limit is 10,000 per subscriber", () => {
    const bus = new Bus()
    const subscription = bus.subscribe("*", () => new Promise<void>(() => {}))
    for (let i = 0; i < 10_050; i++) bus.publish("file.edited", { file: String(i) })
    expect(subscription.pending).toBe(10_000)
    expect(subscription.dropped).toBe(50)
    subscription()
  })

  it("disconnect closes a subscriber whose queue overflows; others are unaffected", async () => {
    const bus = new Bus({ overflow: "disconnect", limit: 2 })
    const disconnected: number[] = []
    const stuck = bus.subscribe("*", () => new Promise<void>(() => {}), {
      onOverflow: (info) => {
        expect(info.policy).toBe("disconnect")
        disconnected.push(info.dropped)
      },
    })
    const seen: string[] = []
    const healthy = bus.subscribe(
      "file.edited",
      (event) => {
        seen.push(event.properties.file)
      },
      { limit: 10 },
    )
    bus.publish("file.edited", { file: "a" })
    bus.publish("file.edited", { file: "b" })
    bus.publish("file.edited", { file: "c" })
    expect(stuck.closed).toBe(true)
    expect(stuck.reason).toBe("overflow")
    expect(stuck.pending).toBe(0)
    expect(disconnected).toEqual([3])
    expect(healthy.closed).toBe(false)
    await bus.idle()
    expect(seen).toEqual(["a", "b", "c"])
    expect(bus.size).toBe(1)
  })

  it("rejects a limit that is not a positive integer", () => {
    expect(() => new Bus({ limit: 0 })).toThrow(RangeError)
    expect(() => new Bus().subscribe("*", () => {}, { limit: 1.5 })).toThrow(RangeError)
  })
})

describe("Bus sessions", () => {
  it("subscribeSession receives the session's events, including part.sessionID, and nothing else", async () => {
    const bus = new Bus()
    const seen: string[] = []
    bus.subscribeSession("s1", (event) => {
      seen.push(event.type)
    })
    bus.publish("message.part.updated", { part: part("s1", "c1") })
    bus.publish("message.part.updated", { part: part("s2", "c2") })
    bus.publish("permission.replied", { sessionID: "s1", requestID: "r", reply: "once" })
    bus.publish("file.edited", { file: "no session" })
    bus.publish("file.edited", { file: "with session", sessionID: "s1" })
    bus.publish("tool.output.delta", { sessionID: "s2", partID: "p", callID: "c", delta: "x" })
    await bus.idle()
    expect(seen).toEqual(["message.part.updated", "permission.replied", "file.edited"])
  })

  it("other sessions' events do not use a session subscriber's queue", () => {
    const bus = new Bus({ limit: 1 })
    const subscription = bus.subscribeSession("s1", () => new Promise<void>(() => {}))
    for (let i = 0; i < 5; i++)
      bus.publish("tool.output.delta", { sessionID: "s2", partID: "p", callID: "c", delta: "" })
    expect(subscription.pending).toBe(0)
    expect(subscription.dropped).toBe(0)
    subscription()
  })

  it("sessionOf reads sessionID or part.sessionID", () => {
    const event = (type: string, properties: unknown) => ({ type, properties }) as Event
    expect(sessionOf(event("todo.updated", { sessionID: "a", todos: [] }))).toBe("a")
    expect(sessionOf(event("message.part.updated", { part: part("b", "c") }))).toBe("b")
    expect(sessionOf(event("file.edited", { file: "x" }))).toBeUndefined()
  })
})

describe("Bus.once", () => {
  it("resolves with the first matching event and unsubscribes", async () => {
    const bus = new Bus()
    const wanted = bus.once("file.edited", (event) => event.properties.file.endsWith(".ts"))
    bus.publish("file.edited", { file: "a.md" })
    bus.publish("file.edited", { file: "b.ts" })
    bus.publish("file.edited", { file: "c.ts" })
    expect((await wanted).properties.file).toBe("b.ts")
    await bus.idle()
    expect(bus.size).toBe(0)
  })

  it("rejects on timeout and on abort", async () => {
    const bus = new Bus()
    await expect(bus.once("file.edited", undefined, { timeout: 10 })).rejects.toThrow(/Timed out after 10 ms/)
    const controller = new AbortController()
    const pending = bus.once("file.edited", undefined, { signal: controller.signal })
    controller.abort(new Error("stop"))
    await expect(pending).rejects.toThrow("stop")
    expect(bus.size).toBe(0)
  })

  it("rejects when the predicate throws", async () => {
    const bus = new Bus()
    const pending = bus.once("file.edited", () => {
      throw new Error("bad predicate")
    })
    bus.publish("file.edited", { file: "x" })
    await expect(pending).rejects.toThrow("bad predicate")
  })
})
