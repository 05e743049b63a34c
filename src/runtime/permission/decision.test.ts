import { describe, expect, it } from "vitest"
import { decide } from "./decision.ts"
import type { Ruleset } from "./rule.ts"

const rules: Ruleset = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "bash", pattern: "git push *", action: "ask" },
]
const denyRm: Ruleset = [{ permission: "bash", pattern: "rm *", action: "deny" }]
const askAll: Ruleset = [{ permission: "bash", pattern: "*", action: "ask" }]
const allowAll: Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

describe("decide", () => {
  it.each([
    // [pattern, constraints, action]
    ["ls", [], "allow"],
    ["git push origin", [], "ask"],
    ["ls", [denyRm], "allow"],
    ["rm x", [denyRm], "deny"],
    ["ls", [askAll], "ask"],
    ["rm x", [askAll, denyRm], "deny"],
    ["rm x", [denyRm, askAll], "deny"],
    ["git push origin", [allowAll], "ask"],
  ] as const)("%s with %j: %s", (pattern, constraints, action) => {
    expect(decide("bash", pattern, rules, constraints).action).toBe(action)
  })

  it("the agent's ruleset asks when nothing matches; a constraint with no match does not restrict", () => {
    expect(decide("bash", "ls", [], [denyRm])).toEqual({ action: "ask", rule: undefined })
    expect(decide("bash", "ls", allowAll, [[]]).action).toBe("allow")
  })

  it("names the first rule that gave the strictest action", () => {
    expect(decide("bash", "rm x", rules, [askAll, denyRm]).rule).toBe(denyRm[0])
    expect(decide("bash", "ls", rules, [askAll, askAll]).rule).toBe(askAll[0])
  })

  it("an unchecked pattern: each ruleset vouches for it on its own", () => {
    const restricting: Ruleset = [...allowAll, ...denyRm]
    expect(decide("bash", "$x", allowAll, [], { unchecked: true }).action).toBe("allow")
    expect(decide("bash", "$x", allowAll, [restricting], { unchecked: true }).action).toBe("ask")
    expect(decide("bash", "$x", restricting, [], { unchecked: true }).action).toBe("ask")
  })
})
