import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { evaluate } from "../ruleset.ts"
import { loadPolicy } from "./policy.ts"

let root: string
let project: string
let env: NodeJS.ProcessEnv

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-policy-"))
  project = join(root, "project")
  await mkdir(project)
  env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "home", ".config") }
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function put(path: string, text: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
  return path
}

const load = (extra: Parameters<typeof loadPolicy>[0] extends infer O ? Partial<O> : never = {}) =>
  loadPolicy({ directory: project, dataDir: join(root, "data"), env, ...extra })

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
