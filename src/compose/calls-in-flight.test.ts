import { describe, expect, it } from "vitest"
import type { ToolPart } from "../platform/store/part.ts"
import type { Settlement } from "../runtime/settle/settle.ts"
import { CallsInFlight, markStopped } from "./calls-in-flight.ts"

const ended = { status: "error" } as unknown as Settlement

function part(state: ToolPart["state"]): ToolPart {
  return {
    id: "prt_1",
    sessionID: "ses_1",
    messageID: "msg_1",
    type: "tool",
    callID: "call_1",
    tool: "bash",
    state,
  }
}

describe("CallsInFlight", () => {
  it("stops a call by its ids: its signal aborts, and the promise gives how it ended", async () => {
    const flights = new CallsInFlight()
    const flying = flights.start("ses_1", "call_1", undefined)
    expect(flights.has("ses_1", "call_1")).toBe(true)
    const stopping = flights.stop("ses_1", "call_1", "page")
    expect(flying.signal.aborted).toBe(true)
    expect(flights.stoppedBy("ses_1", "call_1")).toBe("page")
    flying.land(ended)
    expect(await stopping).toBe(ended)
    expect(flights.has("ses_1", "call_1")).toBe(false)
    expect(flights.stop("ses_1", "call_1", "page")).toBeUndefined()
  })

  it("follows the caller's signal, which names no one", () => {
    const flights = new CallsInFlight()
    const outer = new AbortController()
    const flying = flights.start("ses_1", "call_1", outer.signal)
    outer.abort()
    expect(flying.signal.aborted).toBe(true)
    expect(flights.stoppedBy("ses_1", "call_1")).toBeUndefined()
    flying.land(ended)
  })

  it("keeps the first of two calls with the same ids; the second's end does not drop it", () => {
    const flights = new CallsInFlight()
    const first = flights.start("ses_1", "call_1", undefined)
    const second = flights.start("ses_1", "call_1", undefined)
    second.land(ended)
    expect(flights.has("ses_1", "call_1")).toBe(true)
    first.land(ended)
    expect(flights.has("ses_1", "call_1")).toBe(false)
  })
})

describe("markStopped", () => {
  it("adds who stopped it to an interrupted part only", () => {
    const time = { start: 1, end: 2 }
    const interrupted = part({
      status: "error",
      input: {},
      error: "Tool execution aborted",
      metadata: { interrupted: true },
      time,
    })
    expect(markStopped(interrupted, "api").state).toMatchObject({
      metadata: { interrupted: true, stoppedBy: "api" },
    })
    expect(markStopped(interrupted, undefined)).toBe(interrupted)
    const failed = part({ status: "error", input: {}, error: "no", time })
    expect(markStopped(failed, "api")).toBe(failed)
  })
})
