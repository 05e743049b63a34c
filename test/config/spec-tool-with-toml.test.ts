// Issue 29's "done when": the spec's custom tool, copied verbatim into `.opencode/tool/` of a project
// without node_modules, with the spec's `.opencode/config.toml` (also verbatim), is listed, asks before
// running, and runs once approved. It is listed and called as the spec's step 3 names it,
// `my_custom_tool` (its Tool.define id). The ask comes from config.toml alone: no other rule is set, and
// the refusal without a person names that file as what would lift it (the user's config cannot).
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HELPERS, SPEC_TOML, SPEC_TOOL } from "../custom/fixtures/spec-tool.ts"
import { runCli } from "../fixtures/cli.ts"

let base: string
let project: string
let home: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-spec-toml-")))
  project = join(base, "project")
  home = join(base, "home")
  await mkdir(join(project, ".opencode", "tool"), { recursive: true })
  await mkdir(home, { recursive: true })
  await writeFile(join(project, ".opencode", "tool", "my_tool.ts"), SPEC_TOOL + HELPERS)
  await writeFile(join(project, ".opencode", "config.toml"), SPEC_TOML)
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { cwd: project, home, env: { TOOLBELT_TRUST: "1", ...env } })
const work = () => join(project, "work.log")

describe("the spec's custom tool with the spec's config.toml", { timeout: 120_000 }, () => {
  it("is listed, and no node_modules is near it", () => {
    for (let dir = project; dirname(dir) !== dir; dir = dirname(dir))
      expect(existsSync(join(dir, "node_modules")), dir).toBe(false)
    const tools = JSON.parse(cli(["tools", "--json"]).stdout) as { name: string }[]
    expect(tools.map((tool) => tool.name)).toContain("my_custom_tool")
    expect(tools.map((tool) => tool.name)).not.toContain("my_tool")
  })

  it("asks before running: without a person the ask is refused and nothing runs", () => {
    const result = cli(["call", "my_custom_tool", '{"input":"test"}', "--json"])
    expect(result.status).toBe(1)
    const { error } = JSON.parse(result.stdout) as { error: string }
    expect(error).toContain("permission my_custom_tool for test needs approval")
    // Where the ask came from, and what would really lift it.
    const toml = join(project, ".opencode", "config.toml")
    expect(error).toContain(
      `Re-run with --yes to approve it. The ask comes from "my_custom_tool": "ask" (permission.my_custom_tool in ${toml}), which is opencode's config, whose denies and asks hold for toolbelt's tools too, so your ~/.config/toolbelt/toolbelt.json cannot lift it: change or remove that rule in ${toml}.`,
    )
    expect(existsSync(work())).toBe(false)
  })

  it("runs once the ask is approved", () => {
    const approved = cli(["call", "my_custom_tool", '{"input":"test"}', "--json", "--yes"])
    expect(approved.status, approved.stderr).toBe(0)
    expect(JSON.parse(approved.stdout)).toMatchObject({
      status: "completed",
      title: "Custom work completed",
      output: "done: TEST",
    })
    expect(existsSync(work())).toBe(true)
  })
})
