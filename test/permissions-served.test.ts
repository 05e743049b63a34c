// Permissions when toolbelt is served to another agent: which config files decide, what `toolbelt
// permissions` shows about them, and which tools are offered. Through the real CLI and a real MCP client.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "./fixtures/cli.ts"
import { connectStdio } from "./mcp/helpers.ts"

let home: string
let project: string
let outside: string

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-served-home-")))
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-served-project-")))
  outside = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-served-outside-")))
  await writeFile(join(outside, "secret.txt"), "outside the project\n")
})

afterEach(async () => {
  for (const dir of [home, project, outside]) await rm(dir, { recursive: true, force: true })
})

const cli = (args: string[]) => runCli(args, { cwd: project, home })
const json = (args: string[]) => {
  const result = cli([...args, "--json"])
  expect(result.stderr).toBe("")
  return JSON.parse(result.stdout)
}
/** The same with the project trusted for the run (`TOOLBELT_TRUST=1`, which says so on stderr). */
const trusted = (args: string[]) => runCli(args, { cwd: project, home, env: { TOOLBELT_TRUST: "1" } })
const trustedJson = (args: string[]) => JSON.parse(trusted([...args, "--json"]).stdout)
// What a user of opencode writes for opencode's own built-ins.
const opencodeConfig = { permission: { "*": "allow", bash: { "rm *": "deny" } } }

describe("opencode.json is another agent's config", () => {
  it("is not applied to toolbelt's tools by default: a read outside the project still asks", async () => {
    await writeFile(join(project, "opencode.json"), JSON.stringify(opencodeConfig))
    const result = cli(["call", "read", JSON.stringify({ filePath: join(outside, "secret.txt") }), "--json"])
    expect(result.status).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "error" })
    expect(result.stdout).not.toContain("outside the project\\n")
  })

  it("`toolbelt permissions` lists it as tighten-only: its denies hold, its allows are left out; how to opt in", async () => {
    await writeFile(join(project, "opencode.json"), JSON.stringify(opencodeConfig))
    const report = json(["permissions"])
    expect(report.sources).toEqual([
      {
        file: join(project, "opencode.json"),
        kind: "opencode",
        layer: "project",
        use: "tighten-only",
        note: expect.stringContaining('"permission_sources": ["opencode"]'),
      },
    ])
    const bash = report.permissions.find((entry: { permission: string }) => entry.permission === "bash")
    expect(bash).toBeUndefined()
    expect(report.constraints).toEqual([
      expect.objectContaining({
        by: expect.stringContaining("opencode.json"),
        rules: [expect.objectContaining({ permission: "bash", pattern: "rm *", action: "deny" })],
      }),
    ])
    expect(report.setAside).toContainEqual(
      expect.objectContaining({
        how: "left-out",
        rule: expect.objectContaining({ permission: "*", action: "allow" }),
      }),
    )
    const text = cli(["permissions"]).stdout
    expect(text).toContain(`tighten only  project  ${join(project, "opencode.json")}`)
    expect(text).toContain("Not applied as written:")
    // Its deny holds for toolbelt's bash.
    const rm = cli([
      "call",
      "bash",
      JSON.stringify({ command: "rm -f nothing", description: "rm" }),
      "--json",
    ])
    expect(JSON.parse(rm.stdout)).toMatchObject({
      status: "error",
      error: expect.stringContaining("opencode.json"),
    })
  })

  it('applies when a trusted project\'s toolbelt.json opts in with "permission_sources": ["opencode"], and says so', async () => {
    await writeFile(join(project, "opencode.json"), JSON.stringify(opencodeConfig))
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ permission_sources: ["opencode"] }))
    const readFile = JSON.stringify({ filePath: join(outside, "secret.txt") })
    // Untrusted, the project's opt-in is not honoured: the read outside still asks.
    expect(JSON.parse(cli(["call", "read", readFile, "--json"]).stdout)).toMatchObject({ status: "error" })
    expect(json(["permissions"]).imports).toEqual([])
    const read = trusted(["call", "read", readFile, "--json"])
    expect(JSON.parse(read.stdout)).toMatchObject({ status: "completed" })
    const report = trustedJson(["permissions"])
    expect(report.imports).toEqual(["opencode"])
    expect(report.sources).toEqual([
      { file: join(project, "opencode.json"), kind: "opencode", layer: "project", use: "applied" },
      { file: join(project, "toolbelt.json"), kind: "toolbelt", layer: "project", use: "applied" },
    ])
    const bash = report.permissions.find((entry: { permission: string }) => entry.permission === "bash")
    expect(bash.rules.at(-1)).toEqual({
      permission: "bash",
      pattern: "rm *",
      action: "deny",
      source: { origin: join(project, "opencode.json"), key: 'permission.bash["rm *"]' },
    })
    expect(report.preApproved.everywhere.source).toEqual({
      origin: join(project, "opencode.json"),
      key: "permission.*",
    })
  })
})

describe("toolbelt permissions", () => {
  it("shows each effective rule with the file and key it came from, and the pre-approved directories", async () => {
    await mkdir(join(project, ".toolbelt"))
    await writeFile(
      join(project, "toolbelt.json"),
      JSON.stringify({ permission: { bash: { "*": "ask", "git *": "allow" } } }),
    )
    await writeFile(
      join(project, ".toolbelt", "toolbelt.json"),
      JSON.stringify({
        permission: { bash: { "*": "deny" }, external_directory: { [`${outside}/*`]: "allow" } },
      }),
    )
    const report = trustedJson(["permissions"])
    expect(report.agent).toBe("build")
    expect(report.trusted).toBe(true)
    expect(report.sources.map((source: { file: string }) => source.file)).toEqual([
      join(project, "toolbelt.json"),
      join(project, ".toolbelt", "toolbelt.json"),
    ])
    // Files merge key by key, first-seen order kept: `*` takes .toolbelt/'s action in its first place,
    // so `git *` (after it) still decides git commands. Each rule names the file that set it.
    const bash = report.permissions.find((entry: { permission: string }) => entry.permission === "bash")
    expect(bash.rules).toEqual([
      {
        permission: "bash",
        pattern: "*",
        action: "deny",
        source: { origin: join(project, ".toolbelt", "toolbelt.json"), key: 'permission.bash["*"]' },
      },
      {
        permission: "bash",
        pattern: "git *",
        action: "allow",
        source: { origin: join(project, "toolbelt.json"), key: 'permission.bash["git *"]' },
      },
    ])
    const patterns = report.preApproved.directories.map((rule: { pattern: string }) => rule.pattern)
    expect(patterns).toEqual([join(home, "data", "tool-output", "*"), `${outside}/*`])
    expect(report.preApproved.everywhere).toBeUndefined()
    const text = trusted(["permissions"]).stdout
    expect(text).toContain(
      `${outside}/*  permission.external_directory["${outside}/*"] in ${join(project, ".toolbelt", "toolbelt.json")}`,
    )
    expect(text).toContain("Any other path outside the project asks.")

    // Untrusted: the same files only tighten. Their allows are left out and listed; their deny holds.
    const untrusted = json(["permissions"])
    expect(untrusted.trusted).toBe(false)
    expect(untrusted.sources.map((source: { use: string }) => source.use)).toEqual([
      "tighten-only",
      "tighten-only",
    ])
    expect(
      untrusted.permissions.find((entry: { permission: string }) => entry.permission === "bash"),
    ).toBeUndefined()
    expect(untrusted.preApproved.directories.map((rule: { pattern: string }) => rule.pattern)).toEqual([
      join(home, "data", "tool-output", "*"),
    ])
    expect(untrusted.constraints).toEqual([
      {
        by: expect.stringContaining(`toolbelt trust ${project}`),
        rules: [expect.objectContaining({ permission: "bash", pattern: "*", action: "deny" })],
      },
    ])
    const leftOut = untrusted.setAside
      .filter((entry: { how: string }) => entry.how === "left-out")
      .map(
        (entry: { rule: { permission: string; pattern: string } }) =>
          `${entry.rule.permission} ${entry.rule.pattern}`,
      )
    expect(leftOut).toEqual(["bash git *", `external_directory ${outside}/*`])
    const said = cli(["permissions"]).stdout
    expect(said).toContain("Also held to")
    expect(said).toMatch(/left out +bash git \* allow/)
  })

  it("shows another agent's rules with --agent, and refuses an unknown one", async () => {
    const plan = json(["permissions", "--agent", "plan"])
    const edit = plan.permissions.find((entry: { permission: string }) => entry.permission === "edit")
    expect(edit.rules[0]).toMatchObject({
      pattern: "*",
      action: "deny",
      source: { origin: "the plan agent's defaults" },
    })
    const unknown = cli(["permissions", "--agent", "nobody"])
    expect(unknown.status).not.toBe(0)
    expect(unknown.stderr).toContain('Unknown agent "nobody"')
  })
})

describe("tools that belong to bash", () => {
  const bashFamily = ["bash", "bash_output", "bash_kill"]

  it("are all hidden when bash is denied (toolbelt tools)", async () => {
    expect(json(["tools"]).map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(bashFamily),
    )
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ permission: { bash: "deny" } }))
    const names = json(["tools"]).map((tool: { name: string }) => tool.name)
    for (const name of bashFamily) expect(names).not.toContain(name)
    expect(names).toContain("read")
  })

  it("stay while some bash command is allowed", async () => {
    await writeFile(
      join(project, "toolbelt.json"),
      JSON.stringify({ permission: { bash: { "*": "deny", "git *": "allow" } } }),
    )
    // Untrusted, the project's rules still count to tighten: git commands stay allowed under its deny.
    const listed = cli(["tools", "--json"])
    const names = JSON.parse(listed.stdout).map((tool: { name: string }) => tool.name)
    expect(names).toEqual(expect.arrayContaining(bashFamily))
    // Its allow opens nothing by itself, and stderr says so, with the command that trusts the project.
    expect(listed.stderr).toContain('permission.bash["git *"] allows')
    expect(listed.stderr).toContain(`toolbelt trust ${project}`)
  })

  it("are all hidden from an MCP client's tool list when bash is denied", async () => {
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ permission: { bash: "deny" } }))
    const server = await connectStdio({
      dir: project,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        TOOLBELT_DATA_DIR: join(home, "data"),
      },
      remove: async () => {},
    })
    try {
      const names = (await server.client.listTools()).tools.map((tool) => tool.name)
      expect(names).toContain("read")
      for (const name of bashFamily) expect(names).not.toContain(name)
    } finally {
      await server.close()
    }
  })
})
