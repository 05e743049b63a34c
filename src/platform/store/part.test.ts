import { describe, expect, it } from "vitest"
import {
  advance,
  asInput,
  canAdvance,
  IllegalTransitionError,
  type ToolPart,
  type ToolState,
} from "./part.ts"

const base: ToolPart = {
  id: "prt_1",
  sessionID: "ses",
  messageID: "msg",
  type: "tool",
  callID: "call",
  tool: "read",
  state: { status: "pending", input: {}, raw: "" },
}

const states: Record<ToolState["status"], ToolState> = {
  pending: { status: "pending", input: {}, raw: "{}" },
  running: { status: "running", input: {}, time: { start: 1 } },
  completed: {
    status: "completed",
    input: {},
    output: "o",
    title: "t",
    metadata: {},
    time: { start: 1, end: 2 },
  },
  error: { status: "error", input: {}, error: "e", time: { start: 1, end: 2 } },
}

describe("tool part transitions", () => {
  it.each([
    ["pending", "pending", true],
    ["pending", "running", true],
    ["pending", "completed", true],
    ["pending", "error", true],
    ["running", "running", true],
    ["running", "completed", true],
    ["running", "error", true],
    ["running", "pending", false],
    ["completed", "error", false],
    ["completed", "running", false],
    ["completed", "completed", false],
    ["error", "completed", false],
    ["error", "pending", false],
  ] as const)("%s → %s allowed: %s", (from, to, allowed) => {
    expect(canAdvance(from, to)).toBe(allowed)
    const part = { ...base, state: states[from] }
    if (allowed) expect(advance(part, states[to]).state.status).toBe(to)
    else expect(() => advance(part, states[to])).toThrow(IllegalTransitionError)
  })

  it("wraps input that is not a record", () => {
    expect(asInput("x")).toEqual({ value: "x" })
    expect(asInput([1])).toEqual({ value: [1] })
    expect(asInput({ a: 1 })).toEqual({ a: 1 })
    expect(asInput(undefined)).toEqual({})
  })
})
