import type { ServerContext } from "@modelcontextprotocol/server"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import type { Settlement } from "../../runtime/settle/settle.ts"
import { PROGRESS_INTERVAL_MS } from "./progress.ts"
import { RunningCall } from "./running-call.ts"

/** The parts of a request's context a running call uses: its signal, progress token and notify. */
function request(token: string, sent: unknown[]): ServerContext {
  return {
    mcpReq: {
      signal: new AbortController().signal,
      _meta: { progressToken: token },
      notify: async (notification: { params: unknown }) => {
        sent.push(notification.params)
      },
    },
  } as unknown as ServerContext
}

describe("RunningCall", () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })

  afterEach(() => {
    vi.useRealTimers()
  })

  it("sends no progress to a request answered with an ask, and sends it to the retry", () => {
    const call = new RunningCall({ agent: "build", changes: 0 }, () => new Promise<Settlement>(() => {}))
    const first: unknown[] = []
    const retry: unknown[] = []
    expect(call.attach(request("first", first))).toBe(true)
    call.progress.update("before the ask")
    // The ask goes back as the first request's result (input_required): that request is over.
    call.present({ kind: "question", request: { id: "que_1" } } as never, 60_000, () => {})
    call.progress.update("while the client answers")
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS * 2)
    call.resumed()
    call.attach(request("retry", retry))
    call.progress.update("after the answer")
    expect(first).toEqual([{ progressToken: "first", progress: 1, message: "before the ask" }])
    expect(retry).toEqual([{ progressToken: "retry", progress: 2, message: "after the answer" }])
  })
})
