import { describe, expect, it } from "vitest"
import type { ToolPart, ToolState } from "../../platform/store/part.ts"
import { closedPart, errorText, resultOutcome } from "./tool-outcome.ts"

const part = (state: ToolState): ToolPart => ({
  id: "prt_1",
  sessionID: "ses",
  messageID: "msg",
  type: "tool",
  callID: "c1",
  tool: "echo",
  state,
})

describe("resultOutcome", () => {
  it.each([
    [
      { output: "hi", title: "Echo", metadata: { n: 1 }, attachments: [{ type: "file", url: "x" }] },
      { output: "hi", title: "Echo", metadata: { n: 1 }, attachments: [{ type: "file", url: "x" }] },
    ],
    [
      { output: "hi", title: 3, metadata: null, attachments: [] },
      { output: "hi", title: "", metadata: {} },
    ],
    ["plain text", { output: "plain text", title: "", metadata: {} }],
    [{ results: [1] }, { output: '{"results":[1]}', title: "", metadata: {} }],
    [undefined, { output: "", title: "", metadata: {} }],
  ])("takes %j as %j", (output, expected) => {
    expect(resultOutcome(output)).toEqual(expected)
  })
})

describe("errorText", () => {
  it.each([
    [new Error("boom"), "boom"],
    ["said so", "said so"],
    [{ code: 7 }, '{"code":7}'],
    [undefined, "undefined"],
  ])("gives %j as %j", (error, expected) => {
    expect(errorText(error)).toBe(expected)
  })
})

describe("closedPart", () => {
  it("closes a pending call with the stream part's input, started and ended now", () => {
    const closed = closedPart({
      base: part({ status: "pending", input: {}, raw: '{"q":' }),
      input: "x",
      outcome: { error: "refused" },
      now: 50,
    })
    expect(closed.state).toEqual({
      status: "error",
      input: { value: "x" },
      error: "refused",
      time: { start: 50, end: 50 },
    })
  })

  it("keeps a running call's input and start time", () => {
    const closed = closedPart({
      base: part({ status: "running", input: { q: "kept" }, time: { start: 10 } }),
      input: { q: "ignored" },
      outcome: { output: "done", title: "", metadata: {} },
      now: 50,
    })
    expect(closed.state).toEqual({
      status: "completed",
      input: { q: "kept" },
      output: "done",
      title: "",
      metadata: {},
      time: { start: 10, end: 50 },
    })
  })

  it("refuses to move a finished call", () => {
    const base = part({ status: "error", input: {}, error: "x", time: { start: 1, end: 2 } })
    expect(() => closedPart({ base, input: undefined, outcome: { error: "again" }, now: 3 })).toThrow(
      /Illegal tool part transition/,
    )
  })
})
