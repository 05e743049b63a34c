import type { SpawnSyncReturns } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../../../../test/fixtures/cli.ts"

const root = resolve(import.meta.dirname, "..", "..", "..", "..")
let project: string
let home: string

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-tools-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-home-"))
  // A plugin's tools are deferrable; "on" defers them whatever their size.
  await writeFile(
    join(project, "toolbelt.json"),
    JSON.stringify({ plugin: [join(root, "test", "fixtures", "plugin.ts")], tool_search: "on" }),
  )
})

afterAll(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

function toolbelt(args: string[]): SpawnSyncReturns<string> {
  return runCli(args, { cwd: project, home, env: { TOOLBELT_TRUST: "1" } })
}

describe("toolbelt tools with tool search", () => {
  it("--json gives each tool its tokens and whether it is deferred", () => {
    const result = toolbelt(["tools", "--json"])
    expect(result.status, result.stderr).toBe(0)
    const tools = JSON.parse(result.stdout) as {
      name: string
      tokens: number
      deferred: boolean
      source: string
    }[]
    const echo = tools.find((tool) => tool.name === "echo")!
    expect(echo).toMatchObject({ deferred: true })
    expect(echo.source).toMatch(/^plugin:/)
    expect(echo.tokens).toBeGreaterThan(10)
    expect(tools.find((tool) => tool.name === "read")).toMatchObject({ deferred: false })
    expect(tools.find((tool) => tool.name === "tool_search")).toMatchObject({ deferred: false })
    for (const tool of tools) expect(tool.tokens).toBeGreaterThan(0)
  })

  it("prints a token column, the total with the tokenizer named, and what is deferred and why", () => {
    const result = toolbelt(["tools"])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^Tool +Tokens {2}Description$/m)
    expect(result.stdout).toMatch(/^echo +\d+ {2}Echoes its text back\.\s+\[plugin:.*\] {2}\(deferred\)$/m)
    expect(result.stdout).toMatch(/^Total: [\d,]+ tokens \(o200k_base\) for \d+ tools; listed up front: /m)
    expect(result.stdout).toMatch(/^Tool search: "on", budget 20,000 tokens\. \d+ tools are deferred/m)
  })

  it("toolbelt call tool_search finds a deferred tool, and toolbelt call runs it unlisted", () => {
    const search = toolbelt(["call", "tool_search", '{"query":"echo text back"}', "--json"])
    expect(search.status, search.stderr).toBe(0)
    const output = (JSON.parse(search.stdout) as { output: string }).output
    expect(output.split("\n")[0]).toBe("echo: Echoes its text back.")
    expect(output).toContain('<tool name="echo">')
    const echo = toolbelt(["call", "echo", '{"text":"hi"}', "--json"])
    expect(echo.status, echo.stderr).toBe(0)
    expect(JSON.parse(echo.stdout)).toMatchObject({ status: "completed", output: "hi" })
  })
})
