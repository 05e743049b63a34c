// Workspace trust at the command line, as users run it: `toolbelt trust` and its list and revoke, what
// an untrusted project's tool file does not do, and `--trust` / `TOOLBELT_TRUST=1` for one run.
import { existsSync } from "node:fs"
import { appendFile, mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "../fixtures/cli.ts"
import { type TrustProject, trustProject } from "./project.ts"

let project: TrustProject

beforeEach(async () => {
  project = await trustProject()
})

afterEach(async () => {
  await project.remove()
})

const toolbelt = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { cwd: project.dir, home: project.home, env })

describe("toolbelt trust", () => {
  it("trusts, lists, says changed after the tool file changes, and revokes", async () => {
    const trusted = toolbelt(["trust"])
    expect(trusted.status).toBe(0)
    // What the project would run is shown, with its file.
    expect(trusted.stdout).toContain(`Trusted ${project.dir}`)
    expect(trusted.stdout).toContain(".toolbelt/tools/hello.ts")
    const saved = JSON.parse(await readFile(project.storeFile, "utf8"))
    expect(saved.projects.map((entry: { directory: string }) => entry.directory)).toEqual([project.dir])
    expect((await stat(project.storeFile)).mode & 0o777).toBe(0o600)

    const listed = toolbelt(["trust", "--list"])
    expect(listed.status).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`^${project.dir}  trusted \\S+  unchanged\\n$`))

    // A git pull that changes the tool file: trusted no more, and the list says so.
    await appendFile(project.toolFile, "// changed upstream\n")
    const after = toolbelt(["trust", "--list"])
    expect(after.stdout).toContain("changed since trusted")
    expect(after.stdout).toContain(`toolbelt trust ${project.dir}`)
    const json = JSON.parse(toolbelt(["trust", "--list", "--json"]).stdout)
    expect(json.projects).toEqual([expect.objectContaining({ directory: project.dir, state: "changed" })])
    // ...and the tool file does not run.
    const call = toolbelt(["call", "hello", "--json"])
    expect(call.status).toBe(2)
    expect(existsSync(project.ranMarker)).toBe(false)

    const revoked = toolbelt(["trust", "--revoke"])
    expect(revoked.status).toBe(0)
    expect(revoked.stdout).toContain("Revoked")
    expect(JSON.parse(await readFile(project.storeFile, "utf8")).projects).toEqual([])
    expect(toolbelt(["trust", "--list"]).stdout).toContain("No trusted projects")
    // Revoking what is not trusted says so (exit 1).
    const again = toolbelt(["trust", "--revoke", project.dir])
    expect(again.status).toBe(1)
    expect(again.stderr).toContain("was not trusted")
  })

  it("once trusted, the project's tool runs with no flag", () => {
    expect(toolbelt(["trust", project.dir, "--json"]).status).toBe(0)
    const call = toolbelt(["call", "hello", "--json"])
    expect(call.status).toBe(0)
    expect(JSON.parse(call.stdout)).toMatchObject({
      status: "completed",
      output: "hello from the project tool",
    })
    expect(call.stderr).toBe("")
    expect(existsSync(project.ranMarker)).toBe(true)
  })

  it("refuses a directory that does not exist, and --list with a directory (usage errors)", () => {
    expect(toolbelt(["trust", "no-such-dir"]).status).toBe(2)
    expect(toolbelt(["trust", "--list", project.dir]).status).toBe(2)
    expect(toolbelt(["trust", "--list", "--revoke"]).status).toBe(2)
  })

  it("a trust store that cannot be read is reported, never listed as empty or written over", async () => {
    await mkdir(dirname(project.storeFile), { recursive: true })
    await writeFile(project.storeFile, "{not json")
    const listed = toolbelt(["trust", "--list"])
    expect(listed.status).toBe(1)
    expect(listed.stderr).toContain(project.storeFile)
    expect(toolbelt(["trust"]).status).toBe(1)
    expect(await readFile(project.storeFile, "utf8")).toBe("{not json")
    // Every command says why nothing is trusted.
    const tools = toolbelt(["tools"])
    expect(tools.status).toBe(0)
    expect(tools.stderr).toContain(`The trust store ${project.storeFile} is not valid`)
  })

  it("is in the help", () => {
    expect(toolbelt(["--help"]).stdout).toMatch(/\n {2}trust {5}/)
    expect(toolbelt(["trust", "--help"]).stdout).toContain("toolbelt trust --revoke [DIR]")
  })
})

describe("an untrusted project's tool file", () => {
  it("does not run: call says which file and the trust command (exit 2), and nothing ran", () => {
    const call = toolbelt(["call", "hello", "--json"])
    expect(call.status).toBe(2)
    const error = JSON.parse(call.stdout).error as string
    expect(error).toContain(project.toolFile)
    expect(error).toContain(`toolbelt trust ${project.dir}`)
    expect(call.stderr).toContain(`toolbelt trust ${project.dir}`)
    expect(existsSync(project.ranMarker)).toBe(false)
    // The built-ins still work, and say nothing about trust.
    const read = toolbelt(["call", "read", JSON.stringify({ filePath: "notes.txt" }), "--json"])
    expect(read.status).toBe(0)
    expect(read.stderr).toBe("")
  })

  it("is listed by tools under what is not run until trusted, with the command", () => {
    const text = toolbelt(["tools"])
    expect(text.status).toBe(0)
    expect(text.stdout).not.toMatch(/^hello /m)
    const section = text.stdout.slice(text.stdout.indexOf("Not run until you trust this project:"))
    expect(section).toContain("tool file .toolbelt/tools/hello.ts")
    expect(section).toContain(`toolbelt trust ${project.dir}`)

    const listed = toolbelt(["tools", "--json"])
    const json = JSON.parse(listed.stdout)
    expect(json.map((tool: { name: string }) => tool.name)).not.toContain("hello")
    expect(listed.stderr).toContain("Not run until you trust this project:")
    expect(listed.stderr).toContain(`toolbelt trust ${project.dir}`)
  })
})

describe("a mistyped config key", () => {
  it("does not make a project need trust: the person is told the key is unknown, and nothing about trust", async () => {
    const { rm } = await import("node:fs/promises")
    await rm(dirname(project.toolFile), { recursive: true })
    await writeFile(`${project.dir}/toolbelt.json`, JSON.stringify({ tool_serch: "off" }))
    const tools = toolbelt(["tools"])
    expect(tools.status).toBe(0)
    expect(tools.stdout).not.toContain("Not run until you trust this project")
    expect(tools.stderr).toContain(
      `${project.dir}/toolbelt.json: unknown key \`tool_serch\` (did you mean \`tool_search\`?) — ignored`,
    )
    expect(tools.stderr).not.toContain("toolbelt trust")
    const read = toolbelt(["call", "read", JSON.stringify({ filePath: "notes.txt" }), "--json"])
    expect(read.status).toBe(0)
    expect(read.stderr).toContain("unknown key `tool_serch`")
    expect(read.stderr).not.toContain("toolbelt trust")
    expect(read.stderr.trimEnd().split("\n")).toHaveLength(1)
  })
})

describe("--trust and TOOLBELT_TRUST=1", () => {
  it.each([
    ["--trust", ["--trust"], {}],
    ["TOOLBELT_TRUST=1", [], { TOOLBELT_TRUST: "1" }],
  ] as const)(
    "%s: the tool file runs, said on stderr; --json and the exit code are a call's",
    (by, flags, env) => {
      const call = toolbelt(["call", "hello", "--json", ...flags], env)
      expect(call.status).toBe(0)
      expect(JSON.parse(call.stdout)).toEqual({
        status: "completed",
        title: expect.any(String),
        output: "hello from the project tool",
        metadata: expect.any(Object),
        attachments: [],
      })
      expect(call.stderr).toContain("WARNING")
      expect(call.stderr).toContain(project.dir)
      expect(call.stderr).toContain(by)
      expect(call.stderr).toContain(".toolbelt/tools/hello.ts")
      expect(existsSync(project.ranMarker)).toBe(true)
      // For this run only: nothing was saved.
      expect(existsSync(project.storeFile)).toBe(false)
    },
  )

  it("tools --trust lists the tool, and nothing under what is left out", () => {
    const text = toolbelt(["tools", "--trust"])
    expect(text.stdout).toMatch(/^hello +\d+ +Says hello from the project\./m)
    expect(text.stdout).not.toContain("Not run until you trust")
    expect(text.stderr).toContain("WARNING")
  })

  it("is taken by every command that opens a project", () => {
    for (const args of [["permissions", "show"], ["skills"]]) {
      const result = toolbelt([...args, "--trust"])
      expect(result.status).toBe(0)
    }
  })
})
