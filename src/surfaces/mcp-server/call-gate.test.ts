import { describe, expect, it } from "vitest"
import { CallGate, CallLimitError } from "./call-gate.ts"

const limits = { perSession: 2, total: 3, queued: 2 }

/** Whether the promise has settled, after the microtasks queued so far. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(
    () => {
      done = true
    },
    () => {
      done = true
    },
  )
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe("CallGate", () => {
  it("runs up to the per-session and total limits, queues the next, refuses past the queue", async () => {
    const gate = new CallGate(limits)
    const a = gate.forSession()
    const b = gate.forSession()
    const first = await a.enter()
    await a.enter()
    const third = a.enter()
    expect(await settled(third)).toBe(false)
    await b.enter()
    const overall = b.enter()
    expect(await settled(overall)).toBe(false)
    const fourth = a.enter()
    await expect(a.enter()).rejects.toBeInstanceOf(CallLimitError)
    first()
    expect(await settled(third)).toBe(true)
    expect(gate.running).toBe(3)
    expect(await settled(fourth)).toBe(false)
  })

  it("a session on hold starts nothing new, while its running calls go on; let go, its waiters run", async () => {
    const gate = new CallGate(limits)
    const session = gate.forSession()
    const running = await session.enter()
    session.hold(true)
    const waiting = session.enter()
    expect(await settled(waiting)).toBe(false)
    running()
    expect(await settled(waiting)).toBe(false)
    expect(gate.running).toBe(0)
    // Past the queue it is refused, as without the hold.
    await expect(Promise.all([session.enter(), session.enter()])).rejects.toBeInstanceOf(CallLimitError)
    session.hold(false)
    expect(await settled(waiting)).toBe(true)
    expect(gate.running).toBeGreaterThan(0)
  })
})
