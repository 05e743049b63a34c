import { describe, expect, it } from "vitest"
import type { Event, Events, EventType } from "../bus/events.ts"
import { agentRules, UnknownAgentError } from "./agents/agent.ts"
import { callDigest } from "./digest.ts"
import { PermissionEngine } from "./engine.ts"
import {
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionDigestMismatchError,
  PermissionNotFoundError,
  PermissionRejectedError,
  PermissionUnansweredError,
  PermissionWithdrawnError,
} from "./errors.ts"
import { MemoryApprovalStore } from "./memory-approvals.ts"
import type { Rule, Ruleset } from "./rule.ts"
import type { AskRequest } from "./service.ts"

const rules: Ruleset = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "bash", pattern: "*", action: "ask" },
  { permission: "bash", pattern: "ls *", action: "allow" },
  { permission: "bash", pattern: "rm *", action: "deny" },
  { permission: "edit", pattern: "*", action: "ask" },
  { permission: "external_directory", pattern: "*", action: "ask" },
]

function setup(
  options: {
    store?: MemoryApprovalStore
    projectID?: string
    rules?: Ruleset
    sessionConstraints?: (sessionID: string) => readonly Ruleset[]
    constraints?: (agent: string) => readonly Ruleset[]
  } = {},
) {
  const events: Event[] = []
  const store = options.store ?? new MemoryApprovalStore()
  const engine = new PermissionEngine({
    projectID: options.projectID ?? "/project",
    rules: () => options.rules ?? rules,
    approvals: store,
    publish: <T extends EventType>(type: T, properties: Events[T]) => {
      events.push({ type, properties } as Event)
    },
    ...(options.sessionConstraints ? { sessionConstraints: options.sessionConstraints } : {}),
    ...(options.constraints ? { constraints: options.constraints } : {}),
  })
  return { engine, store, events }
}

let call = 0
function request(permission: string, patterns: string[], overrides: Partial<AskRequest> = {}): AskRequest {
  call++
  return {
    sessionID: "ses_1",
    agent: "build",
    permission,
    patterns,
    always: patterns,
    metadata: {},
    tool: { messageID: "msg_1", callID: `call_${call}`, name: permission },
    input: { patterns },
    ...overrides,
  }
}

const repliedOf = (events: Event[]) =>
  events.filter((event) => event.type === "permission.replied").map((event) => event.properties)

describe("ask: decided by the rules", () => {
  it("resolves at once when every pattern is allowed", async () => {
    const { engine, events } = setup()
    await expect(engine.ask(request("bash", ["ls -la", "ls"]))).resolves.toBeUndefined()
    await expect(engine.ask(request("read", ["src/a.ts"]))).resolves.toBeUndefined()
    expect(engine.list()).toEqual([])
    expect(events).toEqual([])
  })

  it("a configured deny throws PermissionDeniedError listing the relevant rules", async () => {
    const { engine } = setup()
    const error = await engine.ask(request("bash", ["rm -rf /"])).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PermissionDeniedError)
    const denied = error as PermissionDeniedError
    expect(denied.rules).toEqual(rules.filter((r) => r.permission === "*" || r.permission === "bash"))
    // opencode's first sentence (clients match it), then the deciding rule in words, not a JSON dump.
    expect(denied.rule).toEqual({ permission: "bash", pattern: "rm *", action: "deny" })
    expect(denied.message).toBe(
      'The user has specified a rule which prevents you from using this specific tool call: the rule bash "rm *": "deny" denies bash for "rm -rf /". Do not retry it; do something else, or ask the user to change that rule.',
    )
    expect(engine.list()).toEqual([])
  })

  it("denies even when an earlier pattern would ask", async () => {
    const { engine } = setup()
    await expect(engine.ask(request("bash", ["make", "rm x"]))).rejects.toBeInstanceOf(PermissionDeniedError)
    expect(engine.list()).toEqual([])
  })

  it("no patterns: nothing to ask", async () => {
    const { engine } = setup()
    await expect(engine.ask(request("edit", []))).resolves.toBeUndefined()
  })
})

describe("pending requests", () => {
  it("are listed with everything the person deciding needs, and published", async () => {
    const { engine, events } = setup()
    const input = { command: "make build", timeout: 10 }
    const asked = engine.ask(
      request("bash", ["make build"], {
        always: ["make build *"],
        metadata: { command: "make build" },
        tool: { messageID: "msg_9", callID: "call_9", name: "bash" },
        input,
      }),
    )
    const [pending] = engine.list()
    expect(pending).toMatchObject({
      sessionID: "ses_1",
      agent: "build",
      permission: "bash",
      patterns: ["make build"],
      always: ["make build *"],
      metadata: { command: "make build" },
      tool: { messageID: "msg_9", callID: "call_9", name: "bash" },
      digest: callDigest("bash", { timeout: 10, command: "make build" }),
    })
    expect(pending!.id).toMatch(/^per_[0-9a-f]{12}[0-9A-Za-z]{14}$/)
    expect(events).toEqual([{ type: "permission.asked", properties: pending }])
    engine.reply({ requestID: pending!.id, reply: "once" })
    await asked
  })

  it("list is oldest first, and filters by session", async () => {
    const { engine } = setup()
    const asks = [
      engine.ask(request("edit", ["a.ts"])),
      engine.ask(request("edit", ["b.ts"], { sessionID: "ses_2" })),
      engine.ask(request("edit", ["c.ts"])),
    ]
    expect(engine.list().map((r) => r.patterns[0])).toEqual(["a.ts", "b.ts", "c.ts"])
    expect(engine.list("ses_1").map((r) => r.patterns[0])).toEqual(["a.ts", "c.ts"])
    expect(engine.list("ses_2").map((r) => r.patterns[0])).toEqual(["b.ts"])
    engine.dispose()
    await Promise.allSettled(asks)
  })

  it("can be answered from inside the asked event (a prompt that answers at once)", async () => {
    const store = new MemoryApprovalStore()
    const engine: PermissionEngine = new PermissionEngine({
      projectID: "/project",
      rules: () => rules,
      approvals: store,
      publish: (type, properties) => {
        if (type === "permission.asked") {
          engine.reply({ requestID: (properties as Events["permission.asked"]).id, reply: "once" })
        }
      },
    })
    await expect(engine.ask(request("edit", ["a.ts"]))).resolves.toBeUndefined()
  })

  it("a publisher that throws fails the ask and leaves nothing pending", async () => {
    const engine = new PermissionEngine({
      projectID: "/project",
      rules: () => rules,
      approvals: new MemoryApprovalStore(),
      publish: () => {
        throw new Error("bus down")
      },
    })
    await expect(engine.ask(request("edit", ["a.ts"]))).rejects.toThrow("bus down")
    expect(engine.list()).toEqual([])
  })
})

describe("reply", () => {
  it("once resolves only this request", async () => {
    const { engine, events } = setup()
    const first = engine.ask(request("edit", ["a.ts"]))
    const second = engine.ask(request("edit", ["a.ts"]))
    const [a, b] = engine.list()
    engine.reply({ requestID: a!.id, reply: "once" })
    await expect(first).resolves.toBeUndefined()
    expect(engine.list()).toEqual([b])
    expect(repliedOf(events)).toEqual([{ sessionID: "ses_1", requestID: a!.id, reply: "once" }])
    // once remembers nothing
    const third = engine.ask(request("edit", ["a.ts"]))
    expect(engine.list()).toHaveLength(2)
    engine.dispose()
    await Promise.allSettled([second, third])
  })

  it("always saves the request's always list and resolves the session's requests now covered", async () => {
    const { engine, store, events } = setup()
    const first = engine.ask(request("bash", ["make build"], { always: ["make *"] }))
    const covered = engine.ask(request("bash", ["make test"], { always: ["make test *"] }))
    const notCovered = engine.ask(request("bash", ["make x", "npm test"]))
    const otherSession = engine.ask(request("bash", ["make lint"], { sessionID: "ses_2" }))
    const otherPermission = engine.ask(request("edit", ["make x"]))
    const [a, b, c, d, e] = engine.list()
    engine.reply({ requestID: a!.id, reply: "always" })
    await expect(first).resolves.toBeUndefined()
    await expect(covered).resolves.toBeUndefined()
    expect(store.list("/project").map(({ permission, pattern }) => ({ permission, pattern }))).toEqual([
      { permission: "bash", pattern: "make *" },
    ])
    expect(engine.list().map((r) => r.id)).toEqual([c!.id, d!.id, e!.id])
    expect(repliedOf(events)).toEqual([
      { sessionID: "ses_1", requestID: a!.id, reply: "always" },
      { sessionID: "ses_1", requestID: b!.id, reply: "always" },
    ])
    // the approval now applies to new asks of every session of the project
    await expect(engine.ask(request("bash", ["make lint"], { sessionID: "ses_3" }))).resolves.toBeUndefined()
    engine.dispose()
    await Promise.allSettled([notCovered, otherSession, otherPermission])
  })

  it("always remembers `always`, not `patterns`", async () => {
    const { engine, store } = setup()
    const asked = engine.ask(request("edit", ["src/a.ts"], { always: ["*"] }))
    engine.reply({ requestID: engine.list()[0]!.id, reply: "always" })
    await asked
    expect(store.list("/project").map((a) => a.pattern)).toEqual(["*"])
    await expect(engine.ask(request("edit", ["test/b.ts"]))).resolves.toBeUndefined()
  })

  it("always does not save the same approval twice", async () => {
    const { engine, store } = setup()
    store.add({ projectID: "/project", permission: "edit", pattern: "a.ts" })
    store.add({ projectID: "/project", permission: "bash", pattern: "b.ts" })
    const asked = engine.ask(request("edit", ["b.ts"], { always: ["a.ts", "b.ts", "b.ts"] }))
    engine.reply({ requestID: engine.list()[0]!.id, reply: "always" })
    await asked
    expect(store.list("/project").map((a) => `${a.permission} ${a.pattern}`)).toEqual([
      "edit a.ts",
      "bash b.ts",
      "edit b.ts",
    ])
  })

  it("reject fails this request and every other pending request of the session", async () => {
    const { engine, events } = setup()
    const first = engine.ask(request("edit", ["a.ts"]))
    const second = engine.ask(request("bash", ["make"]))
    const otherSession = engine.ask(request("edit", ["a.ts"], { sessionID: "ses_2" }))
    const [a, b, c] = engine.list()
    engine.reply({ requestID: a!.id, reply: "reject" })
    await expect(first).rejects.toBeInstanceOf(PermissionRejectedError)
    await expect(second).rejects.toBeInstanceOf(PermissionRejectedError)
    await expect(first).rejects.toThrow("The user rejected permission to use this specific tool call.")
    expect(engine.list()).toEqual([c])
    expect(repliedOf(events)).toEqual([
      { sessionID: "ses_1", requestID: a!.id, reply: "reject" },
      { sessionID: "ses_1", requestID: b!.id, reply: "reject" },
    ])
    engine.dispose()
    await otherSession.catch(() => {})
  })

  it("reject with a message corrects this request; the others are rejected", async () => {
    const { engine } = setup()
    const first = engine.ask(request("edit", ["a.ts"]))
    const second = engine.ask(request("edit", ["b.ts"]))
    engine.reply({ requestID: engine.list()[0]!.id, reply: "reject", message: "edit b.ts instead" })
    const error = await first.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PermissionCorrectedError)
    expect((error as PermissionCorrectedError).feedback).toBe("edit b.ts instead")
    expect((error as Error).message).toBe(
      "The user rejected permission to use this specific tool call with the following feedback: edit b.ts instead",
    )
    await expect(second).rejects.toBeInstanceOf(PermissionRejectedError)
  })

  it("reject as unanswered says no one could be asked, never that the user rejected it", async () => {
    const { engine } = setup()
    const first = engine.ask(request("edit", ["a.ts"]))
    engine.reply({
      requestID: engine.list()[0]!.id,
      reply: "reject",
      unanswered: "stdin is not a terminal.",
      message: "ignored",
    })
    const error = await first.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PermissionUnansweredError)
    expect((error as Error).message).toBe(
      "This call needs a person's approval and no one could be asked, so it did not run: stdin is not a terminal.",
    )
    expect((error as Error).message).not.toMatch(/user rejected/)
  })

  it("an unknown request id throws PermissionNotFoundError", () => {
    const { engine } = setup()
    expect(() => engine.reply({ requestID: "per_nope", reply: "once" })).toThrow(PermissionNotFoundError)
  })

  it("a request answered already is not found", async () => {
    const { engine } = setup()
    const asked = engine.ask(request("edit", ["a.ts"]))
    const id = engine.list()[0]!.id
    engine.reply({ requestID: id, reply: "once" })
    await asked
    expect(() => engine.reply({ requestID: id, reply: "always" })).toThrow(PermissionNotFoundError)
  })
})

describe("abort and dispose", () => {
  it("aborting removes the pending request and rejects with the abort reason", async () => {
    const { engine, events } = setup()
    const controller = new AbortController()
    const asked = engine.ask(request("edit", ["a.ts"]), { signal: controller.signal })
    const id = engine.list()[0]!.id
    const reason = new Error("interrupted")
    controller.abort(reason)
    await expect(asked).rejects.toBe(reason)
    expect(engine.list()).toEqual([])
    expect(repliedOf(events)).toEqual([{ sessionID: "ses_1", requestID: id, reply: "reject" }])
    expect(() => engine.reply({ requestID: id, reply: "once" })).toThrow(PermissionNotFoundError)
  })

  it("an ask with a signal aborted already never becomes pending", async () => {
    const { engine, events } = setup()
    const controller = new AbortController()
    controller.abort(new Error("gone"))
    await expect(engine.ask(request("edit", ["a.ts"]), { signal: controller.signal })).rejects.toThrow("gone")
    expect(engine.list()).toEqual([])
    expect(events).toEqual([])
  })

  it("aborting after a reply changes nothing", async () => {
    const { engine } = setup()
    const controller = new AbortController()
    const asked = engine.ask(request("edit", ["a.ts"]), { signal: controller.signal })
    engine.reply({ requestID: engine.list()[0]!.id, reply: "once" })
    controller.abort()
    await expect(asked).resolves.toBeUndefined()
  })

  it("dispose ends every pending request of every session, saying toolbelt stopped", async () => {
    const { engine } = setup()
    const asks = [
      engine.ask(request("edit", ["a.ts"])),
      engine.ask(request("edit", ["a.ts"], { sessionID: "ses_2" })),
      engine.ask(request("bash", ["make"], { sessionID: "ses_3" })),
    ]
    engine.dispose()
    for (const asked of asks) await expect(asked).rejects.toBeInstanceOf(PermissionWithdrawnError)
    expect(engine.list()).toEqual([])
  })
})

describe("saved approvals", () => {
  it("survive a new engine over the same store", async () => {
    const store = new MemoryApprovalStore()
    const first = setup({ store }).engine
    const asked = first.ask(request("bash", ["make build"], { always: ["make *"] }))
    first.reply({ requestID: first.list()[0]!.id, reply: "always" })
    await asked
    first.dispose()

    const restarted = setup({ store }).engine
    await expect(restarted.ask(request("bash", ["make test"]))).resolves.toBeUndefined()
    expect(restarted.evaluate({ permission: "bash", pattern: "make test", agent: "build" })).toBe("allow")
  })

  it("belong to their project", async () => {
    const store = new MemoryApprovalStore()
    store.add({ projectID: "/other", permission: "bash", pattern: "make *" })
    const { engine } = setup({ store })
    expect(engine.evaluate({ permission: "bash", pattern: "make test", agent: "build" })).toBe("ask")
    expect(engine.approvals()).toEqual([])
  })

  it("are listed, and revoking one asks again", async () => {
    const { engine, store } = setup()
    const saved = store.add({ projectID: "/project", permission: "bash", pattern: "make *" })
    const foreign = store.add({ projectID: "/other", permission: "bash", pattern: "*" })
    expect(engine.approvals()).toEqual([saved])
    expect(engine.evaluate({ permission: "bash", pattern: "make", agent: "build" })).toBe("allow")
    expect(engine.revoke(foreign.id)).toBe(false)
    expect(store.list("/other")).toEqual([foreign])
    expect(engine.revoke(saved.id)).toBe(true)
    expect(engine.revoke(saved.id)).toBe(false)
    expect(engine.approvals()).toEqual([])
    expect(engine.evaluate({ permission: "bash", pattern: "make", agent: "build" })).toBe("ask")
    const asked = engine.ask(request("bash", ["make"]))
    expect(engine.list()).toHaveLength(1)
    engine.dispose()
    await asked.catch(() => {})
  })

  it("a configured deny beats a saved approval", async () => {
    const { engine, store } = setup()
    store.add({ projectID: "/project", permission: "bash", pattern: "*" })
    await expect(engine.ask(request("bash", ["rm -rf x"]))).rejects.toBeInstanceOf(PermissionDeniedError)
    expect(engine.evaluate({ permission: "bash", pattern: "rm -rf x", agent: "build" })).toBe("deny")
    // ... while it does allow what the rules leave to asking
    await expect(engine.ask(request("bash", ["make"]))).resolves.toBeUndefined()
  })

  it("a deny of another agent is not overridden by an approval given under a permissive one", async () => {
    const store = new MemoryApprovalStore()
    const byAgent: Record<string, Ruleset> = {
      build: [{ permission: "edit", pattern: "*", action: "ask" }],
      plan: [{ permission: "edit", pattern: "*", action: "deny" }],
    }
    const engine = new PermissionEngine({
      projectID: "/p",
      rules: (agent) => byAgent[agent]!,
      approvals: store,
    })
    const asked = engine.ask(request("edit", ["a.ts"], { always: ["*"] }))
    engine.reply({ requestID: engine.list()[0]!.id, reply: "always" })
    await asked
    await expect(engine.ask(request("edit", ["a.ts"], { agent: "plan" }))).rejects.toBeInstanceOf(
      PermissionDeniedError,
    )
  })

  it("`scope: session` remembers for that session only, in memory", async () => {
    const { engine, store } = setup()
    const asked = engine.ask(request("bash", ["make"], { always: ["make *"] }))
    engine.reply({ requestID: engine.list()[0]!.id, reply: "always", scope: "session" })
    await asked
    expect(store.list("/project")).toEqual([])
    await expect(engine.ask(request("bash", ["make test"]))).resolves.toBeUndefined()
    const other = engine.ask(request("bash", ["make test"], { sessionID: "ses_2" }))
    expect(engine.list("ses_2")).toHaveLength(1)
    engine.forgetSession("ses_1")
    const again = engine.ask(request("bash", ["make test"]))
    expect(engine.list("ses_1")).toHaveLength(1)
    engine.dispose()
    await Promise.allSettled([other, again])
  })
})

describe("digest binding", () => {
  it("a reply for another call's digest cannot approve; the request stays pending", async () => {
    const { engine, store } = setup()
    const asked = engine.ask(request("bash", ["make deploy"], { input: { command: "make deploy" } }))
    const pending = engine.list()[0]!
    const stale = callDigest("bash", { command: "make test" })
    expect(() => engine.reply({ requestID: pending.id, reply: "always", digest: stale })).toThrow(
      PermissionDigestMismatchError,
    )
    expect(engine.list()).toEqual([pending])
    expect(store.list("/project")).toEqual([])
    engine.reply({
      requestID: pending.id,
      reply: "once",
      digest: callDigest("bash", { command: "make deploy" }),
    })
    await expect(asked).resolves.toBeUndefined()
  })

  it("two calls with different inputs have different digests", async () => {
    const { engine } = setup()
    const a = engine.ask(request("edit", ["a.ts"], { input: { filePath: "a.ts", content: "x" } }))
    const b = engine.ask(request("edit", ["a.ts"], { input: { filePath: "a.ts", content: "y" } }))
    const [first, second] = engine.list()
    expect(first!.digest).not.toBe(second!.digest)
    expect(() => engine.reply({ requestID: second!.id, reply: "once", digest: first!.digest })).toThrow(
      PermissionDigestMismatchError,
    )
    engine.dispose()
    await Promise.allSettled([a, b])
  })
})

describe("evaluate", () => {
  it("follows the same precedence as ask", () => {
    const { engine, store } = setup()
    expect(engine.evaluate({ permission: "read", pattern: "x", agent: "build" })).toBe("allow")
    expect(engine.evaluate({ permission: "bash", pattern: "rm x", agent: "build" })).toBe("deny")
    expect(engine.evaluate({ permission: "bash", pattern: "make", agent: "build" })).toBe("ask")
    store.add({ projectID: "/project", permission: "bash", pattern: "make" })
    expect(engine.evaluate({ permission: "bash", pattern: "make", agent: "build" })).toBe("allow")
  })

  it("uses the agent's rules", () => {
    const engine = new PermissionEngine({
      projectID: "/p",
      rules: agentRules({ dataDir: "/data", tmpDir: "/tmp" }),
      approvals: new MemoryApprovalStore(),
    })
    expect(engine.evaluate({ permission: "edit", pattern: "src/a.ts", agent: "build" })).toBe("allow")
    expect(engine.evaluate({ permission: "edit", pattern: "src/a.ts", agent: "plan" })).toBe("deny")
    expect(() => engine.evaluate({ permission: "edit", pattern: "a", agent: "nobody" })).toThrow(
      UnknownAgentError,
    )
  })
})

describe("session constraints", () => {
  it("hold in their session only", async () => {
    const child: Rule[] = [{ permission: "edit", pattern: "*", action: "deny" }]
    const { engine } = setup({
      sessionConstraints: (sessionID) => (sessionID === "ses_child" ? [child] : []),
    })
    await expect(engine.ask(request("edit", ["a.ts"], { sessionID: "ses_child" }))).rejects.toBeInstanceOf(
      PermissionDeniedError,
    )
    const parent = engine.ask(request("edit", ["a.ts"]))
    expect(engine.list()).toHaveLength(1)
    engine.dispose()
    await parent.catch(() => {})
  })

  it("a session deny beats a saved approval too", async () => {
    const { engine, store } = setup({
      sessionConstraints: () => [[{ permission: "webfetch", pattern: "*", action: "deny" }]],
    })
    store.add({ projectID: "/project", permission: "webfetch", pattern: "*" })
    await expect(engine.ask(request("webfetch", ["https://x"]))).rejects.toBeInstanceOf(PermissionDeniedError)
  })

  it("an unknown agent fails the ask with the list of agents", async () => {
    const engine = new PermissionEngine({
      projectID: "/p",
      rules: agentRules({ dataDir: "/data", tmpDir: "/tmp" }),
      approvals: new MemoryApprovalStore(),
    })
    await expect(engine.ask(request("edit", ["a"], { agent: "nobody" }))).rejects.toThrow(
      'Unknown agent "nobody". Available agents: build, plan, general, explore.',
    )
  })
})

describe("constraints", () => {
  const source = { origin: "/repo/toolbelt.json", key: 'permission.bash["rm *"]' }
  const project: Ruleset = [{ permission: "bash", pattern: "rm *", action: "deny", source }]
  const allowAll: Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

  it("a constraint's deny beats the agent's allow, and the denial names its rule and source", async () => {
    const { engine } = setup({ rules: allowAll, constraints: () => [project] })
    const error = await engine.ask(request("bash", ["rm -rf x"])).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PermissionDeniedError)
    expect((error as PermissionDeniedError).rule).toEqual(project[0])
    expect((error as PermissionDeniedError).message).toContain("/repo/toolbelt.json")
    expect(engine.evaluate({ permission: "bash", pattern: "rm -rf x", agent: "build" })).toBe("deny")
    // A constraint with no rule for what is asked does not restrict.
    await expect(engine.ask(request("bash", ["ls"]))).resolves.toBeUndefined()
  })

  it("a constraint's allow never loosens the agent's ask or deny", async () => {
    const { engine } = setup({ constraints: () => [allowAll] })
    expect(engine.evaluate({ permission: "bash", pattern: "make", agent: "build" })).toBe("ask")
    await expect(engine.ask(request("bash", ["rm x"]))).rejects.toBeInstanceOf(PermissionDeniedError)
  })

  it("a constraint that asks makes an allowed call ask; a saved approval answers it, never a deny", async () => {
    const asks: Ruleset = [{ permission: "bash", pattern: "*", action: "ask" }]
    const { engine, store } = setup({ rules: allowAll, constraints: () => [asks, project] })
    expect(engine.evaluate({ permission: "bash", pattern: "make", agent: "build" })).toBe("ask")
    store.add({ projectID: "/project", permission: "bash", pattern: "*" })
    expect(engine.evaluate({ permission: "bash", pattern: "make", agent: "build" })).toBe("allow")
    expect(engine.evaluate({ permission: "bash", pattern: "rm x", agent: "build" })).toBe("deny")
  })

  it("each constraint is read on its own: a later allow in one does not lift another's deny", () => {
    const loosens: Ruleset = [{ permission: "bash", pattern: "*", action: "allow" }]
    const { engine } = setup({ rules: allowAll, constraints: () => [project, loosens] })
    expect(engine.evaluate({ permission: "bash", pattern: "rm x", agent: "build" })).toBe("deny")
  })

  it("an unchecked pattern asks when a constraint restricts the permission, though the agent's catch-all allows", async () => {
    const constraint: Ruleset = [
      { permission: "bash", pattern: "*", action: "allow" },
      { permission: "bash", pattern: "rm *", action: "deny" },
    ]
    const { engine } = setup({ rules: allowAll, constraints: () => [constraint] })
    const unchecked = { unchecked: { patterns: ["$(echo rm) x"], reason: "computed", advice: "" } }
    const asked = engine.ask(request("bash", ["$(echo rm) x"], { metadata: unchecked }))
    expect(engine.list()).toHaveLength(1)
    engine.dispose()
    await asked.catch(() => {})
    const { engine: open } = setup({ rules: allowAll })
    await expect(
      open.ask(request("bash", ["$(echo rm) x"], { metadata: unchecked })),
    ).resolves.toBeUndefined()
  })

  it("a session constraint holds a child to its parent's asks, whatever the child's rules allow", async () => {
    const parent: Ruleset = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "bash", pattern: "*", action: "ask" },
    ]
    const { engine } = setup({
      rules: allowAll,
      sessionConstraints: (sessionID) => (sessionID === "ses_child" ? [parent] : []),
    })
    const asked = engine.ask(request("bash", ["touch x"], { sessionID: "ses_child" }))
    expect(engine.list("ses_child")).toHaveLength(1)
    engine.dispose()
    await asked.catch(() => {})
    await expect(engine.ask(request("bash", ["touch x"]))).resolves.toBeUndefined()
  })
})
