import { describe, expect, it } from "vitest"
import { pendingPart, recordedName } from "./call-part.ts"
import type { CallEntry } from "./calls.ts"
import { INVALID } from "./repair.ts"

describe("recordedName", () => {
  const offered = ["read", "bash_output"]
  it.each([
    ["read", undefined, "read"],
    ["Read", undefined, "read"],
    ["BASH_OUTPUT", undefined, "bash_output"],
    ["web_search", undefined, "web_search"],
    [INVALID, { tool: "READ", error: "bad input" }, "read"],
    [INVALID, { tool: "nope" }, "nope"],
    [INVALID, { tool: "" }, INVALID],
    [INVALID, undefined, INVALID],
  ])("records %s (input %j) as %s", (toolName, input, expected) => {
    expect(recordedName(toolName, input, offered)).toBe(expected)
  })
})

describe("pendingPart", () => {
  it("is the entry's part in the processor's session and message, with no input until told", () => {
    const entry: CallEntry = { callID: "c1", partID: "prt_1", tool: "read", phase: "streaming" }
    expect(pendingPart({ entry, sessionID: "ses", messageID: "msg" })).toEqual({
      id: "prt_1",
      sessionID: "ses",
      messageID: "msg",
      type: "tool",
      callID: "c1",
      tool: "read",
      state: { status: "pending", input: {}, raw: "" },
    })
  })
})
