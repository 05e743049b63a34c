import { describe, expect, it } from "vitest"
import { PermissionEngine } from "./engine.ts"
import { PermissionDeniedError, PermissionUnansweredError } from "./errors.ts"
import { MemoryApprovalStore } from "./memory-approvals.ts"
import type { Ruleset } from "./rule.ts"
import type { AskRequest } from "./service.ts"
import { RulePermissions } from "./simple.ts"
import { isCatchAll, unansweredNote, uncheckedOf } from "./unchecked.ts"

const rules = (bash: Record<string, "allow" | "deny" | "ask">): Ruleset => [
  { permission: "*", pattern: "*", action: "allow" },
  ...Object.entries(bash).map(([pattern, action]) => ({ permission: "bash", pattern, action })),
]

const unchecked = {
  patterns: ["$CMD x"],
  reason: "The rules cannot check `$CMD x`: its command word $CMD is computed at run time (an expansion).",
  advice: "Write each command literally.",
}

function ask(patterns: string[], marked = true): AskRequest {
  return {
    sessionID: "ses_1",
    agent: "build",
    permission: "bash",
    patterns,
    always: patterns,
    metadata: marked ? { command: patterns[0], unchecked } : { command: patterns[0] },
  }
}

type Decision = "allow" | "deny" | "ask"

/** The engine's decision: resolved (allow), denied, or left waiting for a person (ask). */
async function engineDecides(
  ruleset: Ruleset,
  request: AskRequest,
  store = new MemoryApprovalStore(),
): Promise<Decision> {
  const engine = new PermissionEngine({ projectID: "/p", rules: () => ruleset, approvals: store })
  const pending = engine.ask(request).then(
    () => "allow" as const,
    (error) => (error instanceof PermissionDeniedError ? ("deny" as const) : ("rejected" as const)),
  )
  await Promise.resolve()
  if (engine.list().length > 0) {
    engine.dispose()
    await pending
    return "ask"
  }
  return (await pending) as Decision
}

/** The simple service's decision, with nobody to ask (an ask fails as unanswered). */
async function simpleDecides(ruleset: Ruleset, request: AskRequest): Promise<Decision> {
  try {
    await new RulePermissions({ rules: ruleset }).ask(request)
    return "allow"
  } catch (error) {
    if (error instanceof PermissionDeniedError) return "deny"
    if (error instanceof PermissionUnansweredError) return "ask"
    throw error
  }
}

describe("a pattern the rules cannot check gets the strictest outcome the rules could give", () => {
  it.each<[string, Ruleset, boolean, Decision]>([
    ["catch-all allow with a deny rule: asks", rules({ "*": "allow", "rm *": "deny" }), true, "ask"],
    ["catch-all allow with an ask rule: asks", rules({ "*": "allow", "rm *": "ask" }), true, "ask"],
    ["only allow rules: allowed", rules({ "*": "allow", "git *": "allow" }), true, "allow"],
    ["catch-all deny: denied", rules({ "*": "deny", "echo *": "allow" }), true, "deny"],
    [
      "a rule that names it allows it",
      rules({ "*": "allow", "rm *": "deny", "$CMD *": "allow" }),
      true,
      "allow",
    ],
    ["a rule that names it denies it", rules({ "*": "allow", "$CMD *": "deny" }), true, "deny"],
    ["** is a catch-all too", rules({ "**": "allow", "rm *": "deny" }), true, "ask"],
    ["unmarked, the catch-all decides as before", rules({ "*": "allow", "rm *": "deny" }), false, "allow"],
  ])("%s", async (_, ruleset, marked, expected) => {
    expect(await engineDecides(ruleset, ask(["$CMD x"], marked))).toBe(expected)
    expect(await simpleDecides(ruleset, ask(["$CMD x"], marked))).toBe(expected)
  })

  it("only the marked patterns are held back: the others are decided as usual", async () => {
    const ruleset = rules({ "*": "allow", "rm *": "deny" })
    expect(await engineDecides(ruleset, ask(["echo hi", "$CMD x"]))).toBe("ask")
    expect(await engineDecides(ruleset, ask(["rm x", "$CMD x"]))).toBe("deny")
    expect(await engineDecides(ruleset, { ...ask(["echo hi"]), metadata: { unchecked } })).toBe("allow")
  })

  it("an approval a person saved for that exact command lets it run", async () => {
    const store = new MemoryApprovalStore()
    store.add({ projectID: "/p", permission: "bash", pattern: "$CMD x" })
    expect(await engineDecides(rules({ "*": "allow", "rm *": "deny" }), ask(["$CMD x"]), store)).toBe("allow")
  })

  it("passes the reason to the person asked, in the request's metadata", async () => {
    const engine = new PermissionEngine({
      projectID: "/p",
      rules: () => rules({ "*": "allow", "rm *": "deny" }),
      approvals: new MemoryApprovalStore(),
    })
    const pending = engine.ask(ask(["$CMD x"])).catch(() => undefined)
    expect(engine.list()[0]?.metadata.unchecked).toEqual(unchecked)
    engine.dispose()
    await pending
  })
})

describe("unchecked metadata", () => {
  it("reads well-formed metadata and ignores the rest", () => {
    expect(uncheckedOf({ unchecked })).toEqual(unchecked)
    expect(uncheckedOf({ unchecked: { patterns: "x" } })).toBeUndefined()
    expect(uncheckedOf({})).toBeUndefined()
    expect(uncheckedOf(undefined)).toBeUndefined()
  })

  it("knows the catch-all patterns", () => {
    expect(["*", "**"].every(isCatchAll)).toBe(true)
    expect(["* *", "*x", "rm *", ""].some(isCatchAll)).toBe(false)
  })

  it("says why a refusal happened and what to do, only for asks with unchecked patterns", () => {
    const note = unansweredNote({ unchecked })!
    expect(note).toContain("computed at run time")
    expect(note).toContain("no one could be asked")
    expect(note).toContain("Write each command literally.")
    expect(unansweredNote({ command: "ls" })).toBeUndefined()
  })
})
