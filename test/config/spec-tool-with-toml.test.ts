// Issue 29's "done when": the spec's custom tool, copied verbatim into `.opencode/tool/` of a project
// without node_modules, with the spec's `.opencode/config.toml` (also verbatim), is listed, asks before
// running, and runs once approved. The ask comes from config.toml alone: no other rule is set.
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../fixtures/cli.ts"

const SPEC_TOOL = await readFile(
  join(import.meta.dirname, "..", "custom", "fixtures", "spec-my-tool.ts.txt"),
  "utf8",
)
/** The spec's step 2, word for word. */
const SPEC_TOML = `[permission]
my_custom_tool = "ask"  # Always ask before running
`
// The spec's tool calls two functions it leaves to the reader; declared after its text, unchanged.
const HELPERS = `
async function doCustomWork(input: string): Promise<string> {
  const { appendFileSync } = await import("node:fs")
  appendFileSync(new URL("../../work.log", import.meta.url), input + "\\n")
  return input.toUpperCase()
}
async function finishWork(result: string): Promise<string> {
  return "done: " + result
}
`

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
    expect(tools.map((tool) => tool.name)).toContain("my_tool")
  })

  it("asks before running: without a person the ask is refused and nothing runs", () => {
    const result = cli(["call", "my_tool", '{"input":"test"}', "--json"])
    expect(result.status).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: "error",
      error: expect.stringContaining("permission my_custom_tool for test needs approval"),
    })
    expect(existsSync(work())).toBe(false)
  })

  it("runs once the ask is approved", () => {
    const approved = cli(["call", "my_tool", '{"input":"test"}', "--json", "--yes"])
    expect(approved.status, approved.stderr).toBe(0)
    expect(JSON.parse(approved.stdout)).toMatchObject({
      status: "completed",
      title: "Custom work completed",
      output: "done: TEST",
    })
    expect(existsSync(work())).toBe(true)
  })
})
