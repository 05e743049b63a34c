import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import type { RunningState } from "../../platform/store/part.ts"
import { ProgressReporter, type ProgressSink, progressMessage } from "./progress.ts"

function running(title: string | undefined, metadata?: Record<string, unknown>): RunningState {
  return {
    status: "running",
    input: {},
    time: { start: 0 },
    ...(title === undefined ? {} : { title }),
    ...(metadata ? { metadata } : {}),
  }
}

describe("progressMessage", () => {
  it.each([
    ["no title: the tool's name", running(undefined), "bash"],
    ["the title", running("Run the tests"), "Run the tests"],
    [
      "the last non-empty line of streamed output",
      running("Run the tests", { output: "a\nb\n\n" }),
      "Run the tests: b",
    ],
    ["output that is not text is ignored", running("t", { output: 3 }), "t"],
    ["bounded", running("x".repeat(300)), `${"x".repeat(199)}…`],
  ])("%s", (_name, state, message) => {
    expect(progressMessage(state, "bash")).toBe(message)
  })
})

describe("ProgressReporter", () => {
  let sent: { progress: number; message?: string }[]
  let sink: ProgressSink

  beforeEach(() => {
    vi.useFakeTimers()
    sent = []
    sink = {
      token: "tok",
      notify: async ({ params }) => {
        expect(params.progressToken).toBe("tok")
        sent.push({ progress: params.progress, ...(params.message ? { message: params.message } : {}) })
      },
    }
  })

  afterEach(() => {
    vi.useRealTimers()
  })

  it("sends the first update at once, then at most one per interval with the latest message", () => {
    const reporter = new ProgressReporter(100)
    reporter.attach(sink)
    reporter.update("one")
    reporter.update("two")
    reporter.update("three")
    expect(sent).toEqual([{ progress: 1, message: "one" }])
    vi.advanceTimersByTime(100)
    expect(sent).toEqual([
      { progress: 1, message: "one" },
      { progress: 2, message: "three" },
    ])
  })

  it("sends nothing without a sink, and nothing after stop", () => {
    const reporter = new ProgressReporter(100)
    reporter.update("unseen")
    expect(sent).toEqual([])
    reporter.attach(sink)
    vi.advanceTimersByTime(200)
    reporter.update("seen")
    reporter.update("pending")
    reporter.stop()
    vi.advanceTimersByTime(500)
    reporter.update("late")
    expect(sent).toEqual([{ progress: 1, message: "seen" }])
  })

  it("keeps counting up across the requests of one call", () => {
    const reporter = new ProgressReporter(0)
    reporter.attach(sink)
    reporter.update("a")
    reporter.attach({ ...sink })
    vi.advanceTimersByTime(1)
    reporter.update("b")
    expect(sent.map((update) => update.progress)).toEqual([1, 2])
  })

  it("ignores a request that is gone", async () => {
    const reporter = new ProgressReporter(0)
    reporter.attach({ token: 1, notify: () => Promise.reject(new Error("No connection")) })
    expect(() => reporter.update("x")).not.toThrow()
  })
})
