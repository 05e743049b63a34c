// The config promises of issue 29 through the real command line: the spec's `.opencode/config.toml`,
// the source rule for another agent's config, `experimental.batch_tool`, unknown keys reported.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "../fixtures/cli.ts"

let home: string
let project: string
let outside: string

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-config-home-")))
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-config-project-")))
  outside = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-config-outside-")))
  await writeFile(join(outside, "notes.txt"), "outside the project\n")
})

afterEach(async () => {
  for (const dir of [home, project, outside]) await rm(dir, { recursive: true, force: true })
})

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

const cli = (args: string[]) => runCli(args, { cwd: project, home })
const toml = () => join(project, ".opencode", "config.toml")
const userConfig = () => join(home, ".config", "toolbelt", "toolbelt.json")
const toolNames = (stdout: string) => (JSON.parse(stdout) as { name: string }[]).map(({ name }) => name)

// Each test starts toolbelt a few times; on a busy machine one start can take seconds.
describe(".opencode/config.toml from the command line", { timeout: 120_000 }, () => {
  it("the spec's config.toml, verbatim: toolbelt permissions takes its ask and says so", async () => {
    await put(toml(), '[permission]\nmy_custom_tool = "ask"  # Always ask before running\n')
    const result = cli(["permissions", "--json"])
    expect(result.stderr).toBe("")
    const report = JSON.parse(result.stdout)
    expect(report.sources).toEqual([
      expect.objectContaining({ file: toml(), kind: "opencode", use: "tighten-only" }),
    ])
    expect(report.constraints).toEqual([
      {
        by: expect.stringContaining(toml()),
        rules: [expect.objectContaining({ permission: "my_custom_tool", pattern: "*", action: "ask" })],
      },
    ])
    const text = cli(["permissions"]).stdout
    expect(text).toContain(`tighten only  project  ${toml()}`)
    expect(text).toContain(`  taken     my_custom_tool * ask  permission.my_custom_tool in ${toml()}`)
  })

  it('a "rm *" deny in it stops toolbelt\'s bash by default, naming the file', async () => {
    await put(toml(), '[permission.bash]\n"*" = "allow"\n"rm *" = "deny"\n')
    const rm = cli([
      "call",
      "bash",
      JSON.stringify({ command: "rm -f nothing", description: "rm" }),
      "--json",
    ])
    expect(JSON.parse(rm.stdout)).toMatchObject({ status: "error", error: expect.stringContaining(toml()) })
    const text = cli(["permissions"]).stdout
    expect(text).toContain(`  taken     bash rm * deny  permission.bash["rm *"] in ${toml()}`)
    expect(text).toContain(`  left out  bash * allow  permission.bash["*"] in ${toml()}`)
  })

  it("its allow applies only once your toolbelt.json names opencode in permission_sources (and the project is trusted)", async () => {
    await put(toml(), `[permission.external_directory]\n"${outside}/*" = "allow"\n`)
    const read = (env: NodeJS.ProcessEnv = {}) =>
      runCli(["call", "read", JSON.stringify({ filePath: join(outside, "notes.txt") }), "--json"], {
        cwd: project,
        home,
        env,
      })
    expect(JSON.parse(read({ TOOLBELT_TRUST: "1" }).stdout)).toMatchObject({ status: "error" })
    await put(userConfig(), JSON.stringify({ permission_sources: ["opencode"] }))
    // Opted in, the project's allow is something it brings: applied only once the project is trusted.
    expect(JSON.parse(read().stdout)).toMatchObject({ status: "error" })
    const allowed = read({ TOOLBELT_TRUST: "1" })
    expect(JSON.parse(allowed.stdout)).toMatchObject({ status: "completed" })
    expect(allowed.stdout).toContain("outside the project")
  })

  it("a syntax error opted in stops the command with file:line:column and what to do", async () => {
    await put(toml(), "[permission]\nbash = deny\n")
    await put(userConfig(), JSON.stringify({ permission_sources: ["opencode"] }))
    const result = cli(["tools"])
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain(`Invalid config file ${toml()}:2:8: `)
    expect(result.stderr).toContain("Fix the TOML there")
  })

  it("a syntax error not opted in is said on stderr, and the command goes on under toolbelt's own policy", async () => {
    await put(toml(), "[permission]\nbash = deny\n")
    const result = cli(["tools", "--json"])
    expect(result.status).toBe(0)
    expect(result.stderr).toContain(`Invalid config file ${toml()}:2:8: `)
    expect(result.stderr).toContain("its denies and asks included")
    expect(toolNames(result.stdout)).toContain("bash")
  })
})

describe("experimental.batch_tool and unknown keys", { timeout: 120_000 }, () => {
  it('{"experimental":{"batch_tool":true}} offers batch, as "batch": true does', async () => {
    expect(toolNames(cli(["tools", "--json"]).stdout)).not.toContain("batch")
    await put(userConfig(), JSON.stringify({ experimental: { batch_tool: true } }))
    const result = cli(["tools", "--json"])
    expect(result.stderr).toBe("")
    expect(toolNames(result.stdout)).toContain("batch")
  })

  it("opencode's own config says it too: the user's always, a project's once trusted (listed until then)", async () => {
    await put(join(project, "opencode.json"), JSON.stringify({ experimental: { batch_tool: true } }))
    const untrusted = cli(["tools"])
    expect(untrusted.stdout).toMatch(/^batch +batch is off/m)
    expect(untrusted.stdout).toContain(`opencode's "experimental.batch_tool" offers batch`)
    expect(toolNames(runCli(["tools", "--json", "--trust"], { cwd: project, home }).stdout)).toContain(
      "batch",
    )
    await rm(join(project, "opencode.json"))
    await put(
      join(home, ".config", "opencode", "opencode.json"),
      JSON.stringify({ experimental: { batch_tool: true } }),
    )
    expect(toolNames(cli(["tools", "--json"]).stdout)).toContain("batch")
  })

  it("a file's own batch wins over its alias", async () => {
    await put(userConfig(), JSON.stringify({ experimental: { batch_tool: true }, batch: false }))
    expect(toolNames(cli(["tools", "--json"]).stdout)).not.toContain("batch")
  })

  it("an unknown key is reported once on stderr, naming it, its file and the key meant; the rest applies", async () => {
    await put(userConfig(), JSON.stringify({ tool_serch: "on", batch: true }))
    const result = cli(["tools", "--json"])
    expect(result.status).toBe(0)
    const line = `${userConfig()}: unknown key \`tool_serch\` (did you mean \`tool_search\`?) — ignored`
    expect(result.stderr).toContain(line)
    expect(result.stderr.split(line)).toHaveLength(2)
    expect(toolNames(result.stdout)).toContain("batch")
  })

  it("another agent's keys toolbelt does not read are not reported as unknown", async () => {
    await put(
      join(project, "opencode.json"),
      JSON.stringify({ $schema: "https://opencode.ai/config.json", model: "x/y", theme: "dark" }),
    )
    await put(toml(), 'model = "x/y"\n[tui]\nscroll_speed = 3\n')
    const result = cli(["tools", "--json"])
    expect(result.stderr).toBe("")
    const report = cli(["permissions"]).stdout
    expect(report).toContain("not used: model, theme")
    expect(report).toContain("not used: model, tui")
  })
})
