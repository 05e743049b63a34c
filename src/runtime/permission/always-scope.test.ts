import { describe, expect, it } from "vitest"
import type { Event, Events, EventType, PermissionAsked } from "../bus/events.ts"
import { agentRules } from "./agents/agent.ts"
import { alwaysScope } from "./always-scope.ts"
import { PermissionEngine } from "./engine.ts"
import { MemoryApprovalStore } from "./memory-approvals.ts"
import type { Rule, Ruleset } from "./rule.ts"
import { lastMatch } from "./ruleset.ts"
import type { AskRequest } from "./service.ts"

const ruleFor = (rules: Ruleset) => (permission: string, pattern: string) =>
  lastMatch(permission, pattern, [rules])

const rule = (permission: string, pattern: string, action: Rule["action"]): Rule => ({
  permission,
  pattern,
  action,
})

const build = agentRules({ dataDir: "/data", home: "/home/me" })("build")

describe("alwaysScope", () => {
  const sensitive: Ruleset = [
    rule("*", "*", "allow"),
    rule("read", "*.env", "ask"),
    rule("read", "*secret*", "ask"),
    rule("bash", "*", "ask"),
    rule("bash", "git push *", "ask"),
    rule("external_directory", "*", "ask"),
    rule("external_directory", "/srv/*", "ask"),
  ]

  it.each<[string, string, string[], string[], string[]]>([
    // A specific rule asked: the path asked about, never the tool's `*`.
    ["a .env read", "read", [".env"], ["*"], [".env"]],
    ["a nested .env read", "read", ["apps/api/.env"], ["*"], ["apps/api/.env"]],
    ["a user's *secret* rule", "read", ["config/secret.json"], ["*"], ["config/secret.json"]],
    // Allowed by the rules: the tool's list as it is.
    ["an ordinary read", "read", ["src/a.ts"], ["*"], ["*"]],
    // The catch-all asked: the tool's list as it is.
    ["bash under the catch-all", "bash", ["ls -la"], ["ls *"], ["ls *"]],
    // A specific bash rule asked: the command, not the prefix the rule is about.
    [
      "git push under its own rule",
      "bash",
      ["git push origin main"],
      ["git push *"],
      ["git push origin main"],
    ],
    // Only the entries that would cover the specific pattern go.
    [
      "a list with one specific pattern",
      "bash",
      ["git push origin main", "ls"],
      ["git push *", "ls *"],
      ["ls *", "git push origin main"],
    ],
    // A pattern holding wildcard characters would match more than itself: nothing is saved for it.
    ["a path with a star in it", "read", ["odd*name.env"], ["*"], []],
    ["a command with a glob", "bash", ["git push origin 'feature/*'"], ["git push *"], []],
    // A tool that offers exactly what it asked about offers what the person saw.
    ["a directory under a specific rule", "external_directory", ["/srv/x/*"], ["/srv/x/*"], ["/srv/x/*"]],
  ])("%s", (_name, permission, patterns, always, expected) => {
    expect(alwaysScope({ permission, patterns, always, ruleFor: ruleFor(sensitive) })).toEqual(expected)
  })

  it("keeps the tool's list when no rule matched (asking is the default)", () => {
    expect(
      alwaysScope({
        permission: "webfetch",
        patterns: ["https://x.test/a"],
        always: ["https://x.test/*"],
        ruleFor: () => undefined,
      }),
    ).toEqual(["https://x.test/*"])
  })

  it("narrows under the build agent's own defaults (read *.env ask)", () => {
    expect(
      alwaysScope({ permission: "read", patterns: [".env"], always: ["*"], ruleFor: ruleFor(build) }),
    ).toEqual([".env"])
    expect(
      alwaysScope({ permission: "read", patterns: [".env.local"], always: ["*"], ruleFor: ruleFor(build) }),
    ).toEqual([".env.local"])
  })
})

describe("the engine saves exactly what it offered", () => {
  function setup(rules: Ruleset) {
    const events: Event[] = []
    const store = new MemoryApprovalStore()
    const engine = new PermissionEngine({
      projectID: "/project",
      rules: () => rules,
      approvals: store,
      publish: <T extends EventType>(type: T, properties: Events[T]) => {
        events.push({ type, properties } as Event)
      },
    })
    return { engine, store, events }
  }

  let call = 0
  const ask = (permission: string, patterns: string[], always: string[]): AskRequest => ({
    sessionID: "ses_1",
    agent: "build",
    permission,
    patterns,
    always,
    metadata: {},
    tool: { messageID: "msg_1", callID: `call_${++call}`, name: permission },
    input: { patterns },
  })

  const asked = (events: Event[]) =>
    events
      .filter((event) => event.type === "permission.asked")
      .map((event) => event.properties as PermissionAsked)

  it("after always on .env, .env is allowed and sub/.env still asks", async () => {
    const { engine, store, events } = setup(build)
    const first = engine.ask(ask("read", [".env"], ["*"]))
    const [request] = engine.list()
    expect(request!.always).toEqual([".env"])
    engine.reply({ requestID: request!.id, reply: "always" })
    await first
    expect(store.list("/project").map((approval) => [approval.permission, approval.pattern])).toEqual([
      ["read", ".env"],
    ])
    // The same file again: allowed by the saved approval, nothing pending.
    await expect(engine.ask(ask("read", [".env"], ["*"]))).resolves.toBeUndefined()
    // Another .env: asked again.
    const other = engine.ask(ask("read", ["sub/.env"], ["*"]))
    expect(engine.list().map((pending) => pending.patterns)).toEqual([["sub/.env"]])
    engine.dispose()
    await expect(other).rejects.toThrow()
    expect(asked(events).map((request) => request.always)).toEqual([[".env"], ["sub/.env"]])
  })

  it.each<[string, Ruleset, string, string[], string[]]>([
    ["a sensitive read", build, "read", [".env.production"], ["*"]],
    ["an edit under the catch-all", [rule("edit", "*", "ask")], "edit", ["src/a.ts"], ["*"]],
    [
      "bash with one specific rule",
      [rule("bash", "*", "ask"), rule("bash", "git push *", "ask")],
      "bash",
      ["git push origin main", "ls -la"],
      ["git push *", "ls *"],
    ],
  ])(
    "%s: the asked event's always is what lands in the store",
    async (_name, rules, permission, patterns, always) => {
      const { engine, store, events } = setup(rules)
      const pending = engine.ask(ask(permission, patterns, always))
      const [request] = engine.list()
      engine.reply({ requestID: request!.id, reply: "always" })
      await pending
      const offered = asked(events)[0]!.always
      expect(store.list("/project").map((approval) => approval.pattern)).toEqual(offered)
      expect(store.list("/project").every((approval) => approval.permission === permission)).toBe(true)
    },
  )
})
