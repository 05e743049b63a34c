import { describe, expect, it } from "vitest"
import { askedBy } from "./asked-by.ts"

describe("askedBy", () => {
  it("names the subagent and its task, and nothing for the session's own asks", () => {
    const call = { sessionID: "ses_p", callID: "t1" }
    expect(askedBy({ agent: "explore", description: "find the loader", parent: call, root: call })).toBe(
      "the explore subagent (task: find the loader)",
    )
    expect(askedBy(undefined)).toBeUndefined()
  })
})
