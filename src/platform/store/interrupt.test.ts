import { describe, expect, it } from "vitest"
import { completed, part } from "./fixtures/helpers.ts"
import { ABORTED, interrupt } from "./journal.ts"
import { IllegalTransitionError, type ToolPart } from "./part.ts"

describe("interrupt", () => {
  const base = part("c")
  it.each<[string, ToolPart["state"], ToolPart["state"]]>([
    [
      "pending",
      { status: "pending", input: { a: 1 }, raw: "{}" },
      {
        status: "error",
        input: { a: 1 },
        error: ABORTED,
        metadata: { interrupted: true },
        time: { start: 9, end: 9 },
      },
    ],
    [
      "running",
      { status: "running", input: {}, metadata: { output: "x" }, time: { start: 3 } },
      {
        status: "error",
        input: {},
        error: ABORTED,
        metadata: { output: "x", interrupted: true },
        time: { start: 3, end: 9 },
      },
    ],
  ])("closes a %s part", (_, from, to) => {
    expect(interrupt({ ...base, state: from }, 9).state).toEqual(to)
  })

  it("refuses a final part", () => {
    expect(() => interrupt({ ...base, state: completed() }, 9)).toThrow(IllegalTransitionError)
  })
})
