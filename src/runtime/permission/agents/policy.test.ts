import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { decide } from "../decision.ts"
import { policyRootEach, put } from "../fixtures/policy-root.ts"
import { evaluate } from "../ruleset.ts"
import { loadPolicy, type Policy } from "./policy.ts"

let root: string
let project: string
let env: NodeJS.ProcessEnv
policyRootEach("toolbelt-policy-", (made) => ({ root, project, env } = made))

const load = (extra: Parameters<typeof loadPolicy>[0] extends infer O ? Partial<O> : never = {}) =>
  loadPolicy({ directory: project, dataDir: join(root, "data"), env, trusted: true, ...extra })

/** What a call of `agent` gets from the rules: its ruleset and every constraint, the strictest. */
const decision = (policy: Policy, agent: string, permission: string, pattern: string) =>
  decide(permission, pattern, policy.rulesOf(agent), policy.constraintsOf(agent)).action

const userConfig = () => join(root, "home", ".config", "toolbelt", "toolbelt.json")

describe("agents from config and agent files", () => {
  it("an agent file defines a subagent with its own prompt and rules; a broken one is reported, the rest load", async () => {
    await put(
      join(project, ".toolbelt", "agents", "docs.md"),
      "---\ndescription: Writes docs\nmode: subagent\npermission:\n  edit:\n    '*': deny\n    'docs/*': allow\n  bash: deny\n---\nYou write documentation.\n",
    )
    const broken = await put(join(project, ".toolbelt", "agents", "broken.md"), "---\nmode: [\n---\nx\n")
    const bad = await put(join(project, ".opencode", "agent", "bad.md"), "---\nmode: boss\n---\nx\n")
    const policy = await load()

    const docs = policy.agents.get("docs")!
    expect(docs).toMatchObject({
      mode: "subagent",
      description: "Writes docs",
      prompt: "You write documentation.",
    })
    expect(evaluate("edit", "docs/a.md", docs.permission).action).toBe("allow")
    expect(evaluate("edit", "src/a.ts", docs.permission).action).toBe("deny")
    expect(evaluate("bash", "ls", docs.permission).action).toBe("deny")
    expect(evaluate("read", "src/a.ts", docs.permission).action).toBe("allow")
    expect(policy.rulesOf("docs")).toBe(docs.permission)

    expect(policy.agents.has("broken")).toBe(false)
    expect(policy.agents.has("bad")).toBe(false)
    expect(policy.errors).toEqual([
      {
        file: bad,
        error: expect.stringContaining('Invalid mode of the frontmatter: expected one of "primary"'),
      },
      { file: broken, error: expect.stringContaining("invalid YAML in the frontmatter at line 2") },
    ])
  })

  it("the agent key gives settings and a tools map; agent files override settings and add rules after", async () => {
    await put(
      join(project, "toolbelt.json"),
      JSON.stringify({
        agent: {
          review: {
            description: "From config",
            mode: "subagent",
            model: "openai/gpt-5",
            tools: { bash: false, write: false },
            permission: { edit: { "notes/*": "allow" } },
          },
        },
      }),
    )
    await put(
      join(root, "home", ".config", "opencode", "agent", "review.md"),
      "---\ndescription: Global\n---\nGlobal prompt.\n",
    )
    await put(
      join(project, ".opencode", "agents", "review.md"),
      "---\ndescription: Project\npermission:\n  bash: allow\n---\nProject prompt.\n",
    )
    const policy = await load()
    const review = policy.agents.get("review")!
    expect(review).toMatchObject({
      description: "Project",
      mode: "subagent",
      model: "openai/gpt-5",
      prompt: "Project prompt.",
    })
    expect(evaluate("bash", "ls", review.permission).action).toBe("allow")
    expect(evaluate("edit", "src/a.ts", review.permission).action).toBe("deny")
    expect(evaluate("edit", "notes/a.md", review.permission).action).toBe("allow")
    expect(policy.errors).toEqual([])
  })

  it("settings given in code apply like read ones; agent files can be left out", async () => {
    await put(join(project, ".toolbelt", "agents", "docs.md"), "---\ndescription: Writes docs\n---\nx\n")
    const policy = await load({
      config: { agent: { helper: { description: "Helps", mode: "subagent", tools: { bash: false } } } },
      agentFiles: false,
    })
    expect(policy.agents.get("helper")).toMatchObject({ description: "Helps", mode: "subagent" })
    expect(evaluate("bash", "ls", policy.rulesOf("helper")).action).toBe("deny")
    expect(policy.agents.has("docs")).toBe(false)
  })

  it("a wrong setting in the agent key is a config error naming it", async () => {
    await put(join(project, "toolbelt.json"), JSON.stringify({ agent: { review: { mode: "boss" } } }))
    await expect(load()).rejects.toThrow(/Invalid mode of agent.review in .*toolbelt.json: expected one of/)
  })
})

describe("layers: the user's policy bounds every other source", () => {
  const rmDeny = JSON.stringify({ bash: { "rm *": "deny" } })

  it.each([true, false])(
    "TOOLBELT_PERMISSION's deny beats the project's agent files and agent key (trusted: %s)",
    async (trusted) => {
      env = { ...env, TOOLBELT_PERMISSION: rmDeny }
      await put(join(project, ".toolbelt", "agents", "build.md"), "---\npermission:\n  bash: allow\n---\n")
      await put(
        join(project, ".opencode", "agent", "build.md"),
        "---\npermission:\n  bash:\n    'rm *': allow\n---\n",
      )
      await put(
        join(project, "toolbelt.json"),
        JSON.stringify({ agent: { build: { permission: { bash: { "rm *": "allow" } } } } }),
      )
      const policy = await load({ trusted })
      expect(decision(policy, "build", "bash", "rm -rf build")).toBe("deny")
      expect(evaluate("bash", "rm -rf build", policy.rulesOf("build")).source?.origin).toBe(
        "TOOLBELT_PERMISSION",
      )
      expect(decision(policy, "build", "bash", "ls")).toBe("allow")
    },
  )

  it.each([true, false])(
    "a project's allow never replaces the user's deny (trusted: %s)",
    async (trusted) => {
      await put(userConfig(), JSON.stringify({ permission: { bash: { "rm *": "deny" } } }))
      await put(join(project, "toolbelt.json"), JSON.stringify({ permission: { bash: { "rm *": "allow" } } }))
      const policy = await load({ trusted })
      expect(decision(policy, "build", "bash", "rm -rf x")).toBe("deny")
      expect(decision(policy, "plan", "bash", "rm -rf x")).toBe("deny")
    },
  )

  it("an untrusted project's allows are left out and listed; a trusted one's apply below the user's", async () => {
    await put(join(project, "toolbelt.json"), JSON.stringify({ permission: { read: { "*.env": "allow" } } }))
    const untrusted = await load({ trusted: false })
    expect(decision(untrusted, "build", "read", "/p/.env")).toBe("ask")
    expect(untrusted.setAside).toEqual([
      expect.objectContaining({
        how: "left-out",
        rule: expect.objectContaining({ permission: "read", pattern: "*.env", action: "allow" }),
        why: expect.stringContaining(`toolbelt trust ${project}`),
      }),
    ])
    const trusted = await load({ trusted: true })
    expect(decision(trusted, "build", "read", "/p/.env")).toBe("allow")
    expect(trusted.setAside).toEqual([])
  })

  it("a project's denies and asks tighten, trusted or not, even what the user allows", async () => {
    await put(userConfig(), JSON.stringify({ permission: { bash: "allow" } }))
    await put(
      join(project, "toolbelt.json"),
      JSON.stringify({ permission: { bash: { "git push *": "ask", "rm *": "deny" } } }),
    )
    await put(join(project, ".toolbelt", "agents", "build.md"), "---\npermission:\n  webfetch: deny\n---\n")
    for (const trusted of [true, false]) {
      const policy = await load({ trusted })
      expect(decision(policy, "build", "bash", "git push origin")).toBe("ask")
      expect(decision(policy, "build", "bash", "rm x")).toBe("deny")
      expect(decision(policy, "build", "bash", "ls")).toBe("allow")
      expect(decision(policy, "build", "webfetch", "https://x")).toBe("deny")
      // The agent file was written for build only.
      expect(decision(policy, "general", "webfetch", "https://x")).toBe("allow")
    }
  })

  it("another agent's config not opted in tightens only; a project cannot opt in unless trusted", async () => {
    await put(
      join(project, "opencode.json"),
      JSON.stringify({
        permission: { bash: { "*": "allow", "git push *": "deny" }, read: { "*.env": "allow" } },
      }),
    )
    await put(join(project, "toolbelt.json"), JSON.stringify({ permission_sources: ["opencode"] }))
    const untrusted = await load({ trusted: false })
    expect(decision(untrusted, "build", "bash", "git push")).toBe("deny")
    expect(decision(untrusted, "build", "read", "a/.env")).toBe("ask")
    expect(untrusted.imports).toEqual([])
    const trusted = await load({ trusted: true })
    expect(trusted.imports).toEqual(["opencode"])
    expect(decision(trusted, "build", "read", "a/.env")).toBe("allow")
    expect(decision(trusted, "build", "bash", "git push")).toBe("deny")
  })

  it("config given in code is the user's layer: applied over a trusted project's, with the variable on top", async () => {
    env = { ...env, TOOLBELT_PERMISSION: rmDeny }
    await put(
      join(project, ".toolbelt", "agents", "build.md"),
      "---\npermission:\n  bash: ask\n  edit: ask\n---\n",
    )
    const policy = await load({ config: { permission: { bash: "allow", edit: "allow" } }, trusted: true })
    expect(evaluate("edit", "a.ts", policy.rulesOf("build")).action).toBe("allow")
    // ... while the project's asks still hold as a constraint.
    expect(decision(policy, "build", "edit", "a.ts")).toBe("ask")
    expect(decision(policy, "build", "bash", "rm x")).toBe("deny")
  })

  it("a ceiling agent holds over every agent: build under explore cannot edit", async () => {
    const policy = await load({ ceiling: "explore" })
    expect(decision(policy, "build", "edit", "a.ts")).toBe("deny")
    expect(decision(policy, "build", "read", "a.ts")).toBe("allow")
    expect(policy.heldTo("build").map((constraint) => constraint.by)).toEqual([
      expect.stringContaining("the explore agent"),
    ])
    await expect(load({ ceiling: "nobody" })).rejects.toThrow('Unknown agent "nobody"')
  })
})
