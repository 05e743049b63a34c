import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fromConfig } from "../config.ts"
import { disabled, evaluate } from "../ruleset.ts"
import {
  agentRules,
  baseRules,
  createAgents,
  SUBAGENT_ORIGIN,
  subagentRules,
  UnknownAgentError,
} from "./agent.ts"

const options = { dataDir: "/data", tmpDir: "/tmpdir", home: "/home/me" }
const action = (agent: string, permission: string, pattern: string, extra = {}) =>
  evaluate(permission, pattern, agentRules({ ...options, ...extra })(agent)).action

describe("base defaults", () => {
  it("are opencode's, in order", () => {
    expect(baseRules(options).map(({ source: _, ...rule }) => rule)).toEqual([
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "doom_loop", pattern: "*", action: "ask" },
      { permission: "mcp_drift", pattern: "*", action: "ask" },
      { permission: "external_directory", pattern: "*", action: "ask" },
      { permission: "external_directory", pattern: "/data/tool-output/*", action: "allow" },
      { permission: "external_directory", pattern: "/tmpdir/*", action: "allow" },
      { permission: "question", pattern: "*", action: "deny" },
      { permission: "plan_enter", pattern: "*", action: "deny" },
      { permission: "plan_exit", pattern: "*", action: "deny" },
      { permission: "read", pattern: "*", action: "allow" },
      { permission: "read", pattern: "*.env", action: "ask" },
      { permission: "read", pattern: "*.env.*", action: "ask" },
      { permission: "read", pattern: "*.env.example", action: "allow" },
    ])
  })

  it("do not pre-approve the system temp dir unless one is given", () => {
    const rules = agentRules({ dataDir: "/data", home: "/home/me" })("build")
    expect(evaluate("external_directory", `${tmpdir()}/*`, rules).action).toBe("ask")
    expect(evaluate("external_directory", "/data/tool-output/*", rules).action).toBe("allow")
  })

  it("also allow the output store and temp dir through their real paths", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolbelt-agent-"))
    try {
      await mkdir(join(root, "real", "tool-output"), { recursive: true })
      await symlink(join(root, "real"), join(root, "data"))
      const rules = baseRules({ dataDir: join(root, "data"), tmpDir: "/tmpdir" })
      const allowed = rules.filter((r) => r.permission === "external_directory" && r.action === "allow")
      expect(allowed.map((r) => r.pattern)).toContain(join(root, "data", "tool-output", "*"))
      expect(allowed.map((r) => r.pattern)).toContain(join(root, "real", "tool-output", "*"))
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})

describe("build", () => {
  it("allows everything inside the project", () => {
    expect(action("build", "edit", "src/a.ts")).toBe("allow")
    expect(action("build", "bash", "rm -rf node_modules")).toBe("allow")
    expect(action("build", "webfetch", "https://example.com")).toBe("allow")
    expect(action("build", "question", "*")).toBe("allow")
    expect(action("build", "plan_enter", "*")).toBe("allow")
    expect(action("build", "plan_exit", "*")).toBe("deny")
  })

  it("asks for .env reads, allows .env.example", () => {
    for (const file of [".env", "apps/api/.env", ".env.local", ".env.production"]) {
      expect(action("build", "read", file)).toBe("ask")
    }
    expect(action("build", "read", ".env.example")).toBe("allow")
    expect(action("build", "read", "src/env.ts")).toBe("allow")
  })

  it("asks outside the project, except the output store and temp dir", () => {
    expect(action("build", "external_directory", "/etc/*")).toBe("ask")
    expect(action("build", "external_directory", "/data/tool-output/*")).toBe("allow")
    expect(action("build", "external_directory", "/tmpdir/x/*")).toBe("allow")
    expect(action("build", "doom_loop", "bash")).toBe("ask")
  })
})

describe("plan", () => {
  it("denies edits except plan files", () => {
    expect(action("plan", "edit", "src/a.ts")).toBe("deny")
    expect(action("plan", "edit", ".toolbelt/plans/feature.md")).toBe("allow")
    expect(action("plan", "edit", ".toolbelt/plans/feature.ts")).toBe("deny")
    expect(action("plan", "plan_exit", "*")).toBe("allow")
    expect(action("plan", "plan_enter", "*")).toBe("deny")
    expect(action("plan", "question", "*")).toBe("allow")
    expect(action("plan", "task", "general")).toBe("deny")
    expect(action("plan", "task", "explore")).toBe("allow")
    expect(action("plan", "external_directory", "/data/plans/*")).toBe("allow")
  })

  it("may edit the data dir's plans through a path relative to the project", () => {
    expect(action("plan", "edit", "../data/plans/x.md", { directory: "/work" })).toBe("allow")
  })

  it("asks for .env reads too", () => {
    expect(action("plan", "read", ".env")).toBe("ask")
  })
})

describe("general and explore", () => {
  it("general cannot write todos", () => {
    expect(action("general", "todowrite", "*")).toBe("deny")
    expect(action("general", "edit", "a.ts")).toBe("allow")
  })

  it("explore only searches and reads", () => {
    for (const permission of ["grep", "glob", "list", "bash", "webfetch", "websearch", "read"]) {
      expect(action("explore", permission, "x")).toBe("allow")
    }
    for (const permission of ["edit", "task", "todowrite", "doom_loop", "mcp_x"]) {
      expect(action("explore", permission, "x")).toBe("deny")
    }
    expect(action("explore", "external_directory", "/etc/*")).toBe("ask")
    expect(action("explore", "external_directory", "/tmpdir/*")).toBe("allow")
    const hidden = disabled(["edit", "write", "read", "grep", "task"], agentRules(options)("explore"))
    expect([...hidden].sort()).toEqual(["edit", "task", "write"])
  })

  it("have their modes", () => {
    const agents = createAgents(options)
    expect([...agents.values()].map((a) => `${a.name}:${a.mode}`)).toEqual([
      "build:primary",
      "plan:primary",
      "general:subagent",
      "explore:subagent",
    ])
  })
})

describe("user config", () => {
  it("comes after the agent's defaults, then the agent's own config", () => {
    const rules = fromConfig({ bash: { "*": "ask", "git *": "allow" }, read: { "*.env": "allow" } })
    const agents = { plan: fromConfig({ bash: "deny" }) }
    const get = agentRules({ ...options, layers: [{ rules, agents }] })
    expect(evaluate("bash", "make", get("build")).action).toBe("ask")
    expect(evaluate("bash", "git log", get("build")).action).toBe("allow")
    expect(evaluate("read", ".env", get("build")).action).toBe("allow")
    expect(evaluate("bash", "git log", get("plan")).action).toBe("deny")
  })

  it("can deny the output store explicitly; otherwise it stays allowed at the end", () => {
    const get = agentRules({
      ...options,
      layers: [
        {
          rules: fromConfig({ external_directory: "deny" }),
          agents: { general: fromConfig({ external_directory: { "/data/tool-output/*": "deny" } }) },
        },
      ],
    })
    expect(evaluate("external_directory", "/data/tool-output/*", get("build")).action).toBe("allow")
    expect(evaluate("external_directory", "/tmpdir/*", get("build")).action).toBe("deny")
    expect(evaluate("external_directory", "/data/tool-output/*", get("general")).action).toBe("deny")
    expect(get("build").at(-1)).toMatchObject({
      permission: "external_directory",
      pattern: "/data/tool-output/*",
      action: "allow",
    })
  })

  it("defines custom agents: base defaults, user config, then theirs", () => {
    const get = agentRules({
      ...options,
      layers: [{ rules: [], agents: { reviewer: fromConfig({ edit: "deny" }) } }],
    })
    expect(evaluate("edit", "a.ts", get("reviewer")).action).toBe("deny")
    expect(evaluate("read", ".env", get("reviewer")).action).toBe("ask")
    expect(
      createAgents({ ...options, layers: [{ rules: [], agents: { reviewer: [] } }] }).get("reviewer")?.mode,
    ).toBe("all")
  })

  it("an unknown agent is a clear error listing the agents", () => {
    const get = agentRules({ ...options, layers: [{ rules: [], agents: { reviewer: [] } }] })
    expect(() => get("biuld")).toThrow(UnknownAgentError)
    expect(() => get("biuld")).toThrow(
      'Unknown agent "biuld". Available agents: build, plan, general, explore, reviewer.',
    )
  })
})

describe("subagentRules", () => {
  const deny = (permission: string) => ({ permission, pattern: "*", action: "deny" })

  it("denies todowrite and task unless the subagent mentions them, and primary tools", () => {
    const subagent = fromConfig({ task: "allow" })
    expect(subagentRules(subagent, { primaryTools: ["bash", "read"] })).toMatchObject([
      deny("todowrite"),
      deny("bash"),
      deny("read"),
    ])
    expect(subagentRules([])).toMatchObject([deny("todowrite"), deny("task")])
    expect(subagentRules(fromConfig({ todowrite: "allow", task: { explore: "allow" } }))).toEqual([])
  })

  it("denies task at the depth limit even to a subagent that may start subagents", () => {
    expect(subagentRules(fromConfig({ task: "allow" }), { atDepthLimit: true })).toMatchObject([
      deny("todowrite"),
      deny("task"),
    ])
    expect(subagentRules(fromConfig({ task: "allow" }), { atDepthLimit: false })).toMatchObject([
      deny("todowrite"),
    ])
  })

  it("removes duplicates, and says where each denial comes from", () => {
    const rules = subagentRules([], { primaryTools: ["task"] })
    expect(rules).toMatchObject([deny("todowrite"), deny("task")])
    expect(rules[1]!.source).toEqual({ origin: SUBAGENT_ORIGIN, key: "permission.task" })
  })
})

describe("agent settings (config and agent files)", () => {
  it("describe, mode, prompt and model a custom agent; without a description it says so", () => {
    const agents = createAgents({
      ...options,
      definitions: {
        review: {
          description: "Reviews changes",
          mode: "subagent",
          prompt: "Review.",
          model: "openai/gpt-5",
        },
        helper: {},
      },
    })
    expect(agents.get("review")).toMatchObject({
      mode: "subagent",
      description: "Reviews changes",
      described: true,
      prompt: "Review.",
      model: "openai/gpt-5",
    })
    expect(agents.get("helper")).toMatchObject({ mode: "all", described: false })
    expect(evaluate("edit", "a.ts", agents.get("helper")!.permission).action).toBe("allow")
    expect(evaluate("question", "*", agents.get("helper")!.permission).action).toBe("deny")
  })

  it("change a built-in agent's settings but not its defaults, and disable agents but build", () => {
    const agents = createAgents({
      ...options,
      definitions: {
        explore: { model: "anthropic/claude-haiku-4-5" },
        general: { disable: true },
        build: { disable: true },
      },
    })
    expect(agents.get("explore")).toMatchObject({
      mode: "subagent",
      model: "anthropic/claude-haiku-4-5",
      described: true,
    })
    expect(agents.get("explore")?.prompt).toContain("you change nothing")
    expect(agents.has("general")).toBe(false)
    expect(agents.has("build")).toBe(true)
  })
})

describe("rule sources", () => {
  it("every rule of an agent says where it was written", () => {
    const rules = agentRules({
      ...options,
      layers: [
        {
          rules: [
            {
              permission: "bash",
              pattern: "rm *",
              action: "deny",
              source: { origin: "/p/toolbelt.json", key: "k" },
            },
          ],
          agents: {},
        },
      ],
    })("plan")
    expect(rules.every((rule) => rule.source !== undefined)).toBe(true)
    expect(rules.find((rule) => rule.permission === "doom_loop")!.source).toEqual({
      origin: "toolbelt's defaults",
      key: "permission.doom_loop",
    })
    expect(rules.find((rule) => rule.permission === "plan_exit" && rule.action === "allow")!.source).toEqual({
      origin: "the plan agent's defaults",
      key: "permission.plan_exit",
    })
    expect(rules.at(-1)!.source!.origin).toMatch(/output store/)
  })
})
