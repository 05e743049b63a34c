// skill and batch on the surfaces people use: `toolbelt skills`, `toolbelt call`, `toolbelt run` (against
// the scripted loopback model server) and `toolbelt mcp` (stdio, the official MCP client), each a real
// subprocess on a project with skill folders on disk.

import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { ElicitRequestFormParams } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, runCliAsync } from "../fixtures/cli.ts"
import { connectStdio, makeProject, type Project, type StdioConnected, textOf } from "../mcp/helpers.ts"
import { fakeOpenAI } from "../run/openai-server.ts"

let project: Project
let home: string

async function skill(base: string, name: string, description: string, body: string) {
  await mkdir(join(base, name), { recursive: true })
  await writeFile(
    join(base, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`,
  )
}

beforeAll(async () => {
  project = await makeProject({ batch: true })
  home = project.env.HOME!
  await skill(
    join(project.dir, ".claude", "skills"),
    "changelog",
    "Write the changelog entry.",
    "Keep a Changelog format.",
  )
  await skill(
    join(home, ".claude", "skills"),
    "release",
    "Cut a release: tag and publish.",
    "Tag, then publish.",
  )
  await skill(join(home, ".claude", "skills"), "changelog", "The user's changelog skill.", "Global.")
  await mkdir(join(project.dir, ".toolbelt", "skills", "broken"), { recursive: true })
  await writeFile(join(project.dir, ".toolbelt", "skills", "broken", "SKILL.md"), "no frontmatter\n")
  await writeFile(join(project.dir, "a.txt"), "alpha\n")
  await writeFile(join(project.dir, "b.txt"), "beta\n")
  await mkdir(join(home, "elsewhere"))
  await writeFile(join(home, "elsewhere", "far.txt"), "far away\n")
})

afterAll(async () => {
  await project?.remove()
})

const cli = (args: string[]) => runCli(args, { cwd: project.dir, home, env: project.env })

describe("toolbelt skills", () => {
  it("lists each skill with where it came from, the shadowed one, and warns about the broken one", () => {
    const result = cli(["skills"])
    expect(result.status).toBe(0)
    expect(result.stdout).toBe(
      [
        "changelog  Write the changelog entry.  [.claude/skills/changelog/SKILL.md (project)]",
        "release    Cut a release: tag and publish.  [~/.claude/skills/release/SKILL.md (global)]",
        "shadowed: changelog [~/.claude/skills/changelog/SKILL.md (global)] by .claude/skills/changelog/SKILL.md",
        "",
      ].join("\n"),
    )
    expect(result.stderr).toContain(
      `warning: skill ${join(project.dir, ".toolbelt", "skills", "broken", "SKILL.md")} not loaded: no YAML frontmatter`,
    )
  })

  it("prints one JSON object with --json", () => {
    const result = cli(["skills", "--json"])
    const listed = JSON.parse(result.stdout) as {
      skills: { name: string; scope: string }[]
      errors: unknown[]
    }
    expect(listed.skills.map((each) => [each.name, each.scope])).toEqual([
      ["changelog", "project"],
      ["release", "global"],
    ])
    expect(listed.errors).toHaveLength(1)
  })
})

describe("toolbelt call", () => {
  it("loads a skill", () => {
    const result = cli(["call", "skill", '{"name":"release"}', "--json"])
    expect(result.status).toBe(0)
    const answer = JSON.parse(result.stdout) as { title: string; output: string }
    expect(answer.title).toBe("Loaded skill: release")
    expect(answer.output).toContain(
      `Tag, then publish.\n\nBase directory for this skill: ${join(home, ".claude", "skills", "release")}`,
    )
    expect(result.stderr).toContain("not loaded: no YAML frontmatter")
  })

  it("runs a batch, each call recorded under the batch's call id", () => {
    const session = ["--session", "ses_cli_batch"]
    const input = {
      tool_calls: [
        { tool: "read", parameters: { filePath: "a.txt" } },
        { tool: "read", parameters: { filePath: "b.txt" } },
        { tool: "write", parameters: { filePath: "c.txt", content: "gamma\n" } },
      ],
    }
    const result = cli(["call", "batch", JSON.stringify(input), "--json", ...session])
    expect(result.status).toBe(0)
    const answer = JSON.parse(result.stdout) as {
      output: string
      metadata: { calls: { status: string; callID: string }[] }
    }
    expect(answer.metadata.calls.map((each) => each.status)).toEqual(["completed", "completed", "completed"])
    const batchID = answer.metadata.calls[0]!.callID.replace(/\.1$/, "")
    expect(answer.metadata.calls.map((each) => each.callID)).toEqual([1, 2, 3].map((n) => `${batchID}.${n}`))
    expect(answer.output).toContain("1: alpha")
    expect(answer.output).toContain("1: beta")
  })

  it("stops with the unanswered ask when a call of the batch needs a person and none can be asked", async () => {
    const input = {
      tool_calls: [{ tool: "read", parameters: { filePath: join(home, "elsewhere", "far.txt") } }],
    }
    const refused = cli(["call", "batch", JSON.stringify(input), "--json"])
    expect(refused.status).toBe(1)
    expect(JSON.parse(refused.stdout).error).toContain("no one could be asked")
    const approved = cli(["call", "batch", JSON.stringify(input), "--json", "--yes"])
    expect(approved.status).toBe(0)
    expect(JSON.parse(approved.stdout).output).toContain("far away")
  })

  it("does not offer batch without the config switch", async () => {
    const other = await makeProject()
    try {
      const tools = runCli(["tools", "--json"], { cwd: other.dir, home: other.env.HOME!, env: other.env })
      const names = (JSON.parse(tools.stdout) as { name: string }[]).map((tool) => tool.name)
      expect(names).toContain("read")
      expect(names).not.toContain("batch")
      expect(names).not.toContain("skill")
    } finally {
      await other.remove()
    }
  })
})

describe("toolbelt mcp", () => {
  let server: StdioConnected
  const forms: ElicitRequestFormParams[] = []

  beforeAll(async () => {
    server = await connectStdio(project, {
      answer: (params) => {
        forms.push(params)
        return { action: "accept", content: { decision: "once" } }
      },
    })
  })

  afterAll(async () => {
    await server?.close()
  })

  it("offers both tools; skill's description lists the skills", async () => {
    const tools = (await server.client.listTools()).tools
    const skillTool = tools.find((tool) => tool.name === "skill")
    expect(skillTool?.description).toContain(
      "- changelog: Write the changelog entry.\n- release: Cut a release: tag and publish.",
    )
    expect(tools.map((tool) => tool.name)).toContain("batch")
  })

  it("loads a skill", async () => {
    const result = await server.client.callTool({ name: "skill", arguments: { name: "changelog" } })
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toContain("Keep a Changelog format.")
  })

  it("shows the client the ask of a call inside a batch, and runs it once answered", async () => {
    forms.length = 0
    const result = await server.client.callTool({
      name: "batch",
      arguments: {
        tool_calls: [
          { tool: "read", parameters: { filePath: join(home, "elsewhere", "far.txt") } },
          { tool: "read", parameters: { filePath: "a.txt" } },
        ],
      },
    })
    expect(result.isError).toBeFalsy()
    expect(forms).toHaveLength(1)
    expect(forms[0]!.message).toContain("external_directory")
    const text = textOf(result)
    expect(text).toMatch(/^All 2 calls completed\./)
    expect(text).toContain("far away")
    expect(text).toContain("alpha")
  })
})

describe("toolbelt run", () => {
  it("gives the model every answer of its batch, and a skill's instructions", async () => {
    const server = await fakeOpenAI([
      {
        toolCalls: [
          {
            name: "batch",
            arguments: {
              tool_calls: [
                { tool: "read", parameters: { filePath: "a.txt" } },
                { tool: "read", parameters: { filePath: "b.txt" } },
              ],
            },
          },
          { name: "skill", arguments: { name: "changelog" } },
        ],
      },
      { text: "Read both." },
    ])
    try {
      const result = await runCliAsync(
        ["run", "read a and b", "--model", "openai-compatible/test-model", "--base-url", server.baseURL],
        { cwd: project.dir, home, env: project.env },
      )
      expect(result.status).toBe(0)
      expect(result.stdout).toBe("Read both.\n")
      const offered = server.requests[0].tools.map(
        (tool: { function: { name: string } }) => tool.function.name,
      )
      expect(offered).toEqual(expect.arrayContaining(["batch", "skill"]))
      const answers = server.requests[1].messages.filter(
        (message: { role: string }) => message.role === "tool",
      )
      expect(answers[0].content).toMatch(/^All 2 calls completed\./)
      expect(answers[0].content).toContain("1: alpha")
      expect(answers[0].content).toContain("1: beta")
      expect(answers[1].content).toContain("Keep a Changelog format.")
    } finally {
      await server.close()
    }
  })
})
