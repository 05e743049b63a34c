import { describe, expect, it } from "vitest"
import { terms } from "./terms.ts"
import { actions, leadAction } from "./verbs.ts"

describe("actions", () => {
  it("tells reading from writing by the verbs", () => {
    expect(actions(terms("list the branches"))).toEqual(new Set(["read"]))
    expect(actions(terms("create_branch"))).toEqual(new Set(["write"]))
    expect(actions(terms("search issues and close them"))).toEqual(new Set(["read", "write"]))
  })

  it("gives nothing when no verb of either kind is there", () => {
    expect(actions(terms("weather in Paris"))).toEqual(new Set())
  })
})

describe("leadAction", () => {
  it("is the kind of the first action word: what the query asks to do", () => {
    expect(leadAction(terms("list the stories assigned to me"))).toBe("read")
    expect(leadAction(terms("close the abandoned pull request"))).toBe("write")
    expect(leadAction(terms("weather in Paris"))).toBeUndefined()
  })
})
