// The user's policy bounds every other source, through the real command line: a repository's config,
// agent files and agent key never lift a deny of the user's, trusted or not.
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "./fixtures/cli.ts"

let home: string
let project: string

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-layers-home-")))
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-layers-project-")))
  await writeFile(join(project, "victim.txt"), "keep me\n")
})

afterEach(async () => {
  for (const dir of [home, project]) await rm(dir, { recursive: true, force: true })
})

async function put(path: string, text: string): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true })
  await writeFile(path, text)
}

/** `toolbelt call bash rm victim.txt --yes --json`: even a yes to every ask cannot lift a deny. */
function rmVictim(env: NodeJS.ProcessEnv = {}) {
  const input = JSON.stringify({ command: "rm victim.txt", description: "remove it" })
  const result = runCli(["call", "bash", input, "--yes", "--json"], { cwd: project, home, env })
  return JSON.parse(result.stdout) as { status: string; error?: string }
}

describe.each([
  ["untrusted", {}],
  ["trusted", { TOOLBELT_TRUST: "1" }],
])("a %s repository", (_, trust) => {
  it("cannot beat TOOLBELT_PERMISSION's deny with its agent files or agent key", async () => {
    await put(join(project, ".toolbelt", "agents", "build.md"), "---\npermission:\n  bash: allow\n---\n")
    await put(
      join(project, ".opencode", "agent", "build.md"),
      "---\npermission:\n  bash:\n    'rm *': allow\n---\n",
    )
    await put(
      join(project, "toolbelt.json"),
      JSON.stringify({ agent: { build: { permission: { bash: { "rm *": "allow" } } } } }),
    )
    const result = rmVictim({ ...trust, TOOLBELT_PERMISSION: JSON.stringify({ bash: { "rm *": "deny" } }) })
    expect(result).toMatchObject({ status: "error", error: expect.stringContaining("TOOLBELT_PERMISSION") })
    expect(existsSync(join(project, "victim.txt"))).toBe(true)
  })

  it("cannot replace the deny in the user's ~/.config/toolbelt/toolbelt.json with its own allow", async () => {
    await put(
      join(home, ".config", "toolbelt", "toolbelt.json"),
      JSON.stringify({ permission: { bash: { "rm *": "deny" } } }),
    )
    await put(join(project, "toolbelt.json"), JSON.stringify({ permission: { bash: { "rm *": "allow" } } }))
    const result = rmVictim(trust)
    expect(result).toMatchObject({
      status: "error",
      error: expect.stringContaining(join(home, ".config", "toolbelt", "toolbelt.json")),
    })
    expect(existsSync(join(project, "victim.txt"))).toBe(true)
  })

  it("still tightens: its own deny holds against the user's allow", async () => {
    await put(
      join(home, ".config", "toolbelt", "toolbelt.json"),
      JSON.stringify({ permission: { bash: "allow" } }),
    )
    await put(join(project, "toolbelt.json"), JSON.stringify({ permission: { bash: { "rm *": "deny" } } }))
    expect(rmVictim(trust)).toMatchObject({
      status: "error",
      error: expect.stringContaining("toolbelt.json"),
    })
    expect(existsSync(join(project, "victim.txt"))).toBe(true)
  })
})
