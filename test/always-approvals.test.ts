// "Always" saves no more than the person saw, through the command line: an ask answered "always" at a
// real terminal (`toolbelt call --session` on a pseudo-terminal), then the follow-up calls each in their
// own process with no terminal, so any call that still asks is refused (no one can be asked).
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createToolbelt } from "agent-toolbelt"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { internals } from "../src/compose/internals.ts"
import { BIN, cliEnv, runCli } from "./fixtures/cli.ts"
import { hasPty, onTerminal } from "./fixtures/pty.ts"

let project: string
let home: string

beforeEach(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-always-")))
  home = await mkdtemp(join(tmpdir(), "toolbelt-always-home-"))
})

afterEach(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

/** bash asks for everything: the person's own setting, so every command goes through the prompt. */
const env = { TOOLBELT_PERMISSION: JSON.stringify({ bash: "ask" }) }

const call = (tool: string, input: unknown) =>
  runCli(["call", tool, JSON.stringify(input), "--json", "--session", "ses_always"], {
    cwd: project,
    home,
    env,
  })

/** Calls `tool` at a terminal and answers its one ask "always"; returns what the prompt said it would save. */
async function answerAlways(tool: string, input: unknown): Promise<string> {
  const terminal = onTerminal(
    process.execPath,
    [BIN, "call", tool, JSON.stringify(input), "--session", "ses_always"],
    { cwd: project, env: cliEnv(home, env) },
  )
  await terminal.waitFor("Allow? ")
  const remembered = /"always" would remember:? (.*)\r?\n/.exec(terminal.screen())?.[1]
  terminal.type("a")
  expect(await terminal.exited).toBe(0)
  return remembered ?? ""
}

/** The project's saved approvals, as `permission pattern`. */
function saved(): string[] {
  const listed = runCli(["permissions", "list", "--json"], { cwd: project, home, env })
  expect(listed.status).toBe(0)
  const approvals = JSON.parse(listed.stdout) as { permission: string; pattern: string }[]
  return approvals.map((approval) => `${approval.permission} ${approval.pattern}`)
}

const refused = (result: ReturnType<typeof call>) => {
  expect(result.status).toBe(1)
  expect(JSON.parse(result.stdout).error).toMatch(/needs approval/)
}

describe.skipIf(!hasPty)('"always" through toolbelt call', () => {
  it("on reading .env saves .env: .env reads unasked, sub/.env still asks", async () => {
    await writeFile(join(project, ".env"), "TOKEN=one\n")
    await mkdir(join(project, "sub"))
    await writeFile(join(project, "sub", ".env"), "TOKEN=two\n")

    expect(await answerAlways("read", { filePath: ".env" })).toBe("read .env")
    expect(saved()).toEqual(["read .env"])

    const again = call("read", { filePath: ".env" })
    expect(again.status).toBe(0)
    expect(JSON.parse(again.stdout).output).toContain("TOKEN=one")
    // The same file spelled another way is the same pattern (relative to the worktree).
    expect(call("read", { filePath: join(project, ".env") }).status).toBe(0)
    expect(call("read", { filePath: "sub/../.env" }).status).toBe(0)
    refused(call("read", { filePath: "sub/.env" }))
    refused(call("read", { filePath: join(project, "sub", ".env") }))
  })

  it("on rm -rf build/ saves that command: it runs again, other targets still ask", async () => {
    await mkdir(join(project, "build"))
    await mkdir(join(project, "keep"))
    await writeFile(join(project, "keep", "file.txt"), "keep me\n")

    const command = "rm -rf build/"
    expect(await answerAlways("bash", { command })).toBe(`bash ${command}`)
    expect(saved()).toEqual([`bash ${command}`])
    expect(existsSync(join(project, "build"))).toBe(false)

    await mkdir(join(project, "build"))
    expect(call("bash", { command }).status).toBe(0)
    expect(existsSync(join(project, "build"))).toBe(false)

    await mkdir(join(project, "build"))
    for (const other of ["rm -rf build/ keep", "rm -rf build/../keep", "rm -rf keep", "rm keep/file.txt"]) {
      refused(call("bash", { command: other }))
    }
    expect(existsSync(join(project, "keep", "file.txt"))).toBe(true)
    expect(existsSync(join(project, "build"))).toBe(true)
  })

  it("when no pattern matches only the call, says it saves nothing, and saves nothing", async () => {
    await writeFile(join(project, "a.o"), "")
    expect(await answerAlways("bash", { command: "rm -f *.o" })).toBe(
      "nothing: no pattern matches only this call, so it allows this call once",
    )
    expect(saved()).toEqual([])
    await writeFile(join(project, "b.o"), "")
    refused(call("bash", { command: "rm -f *.o" }))
    expect(existsSync(join(project, "b.o"))).toBe(true)
  })

  it("on a command whose arguments carry no risk saves its arity prefix, as before", async () => {
    expect(await answerAlways("bash", { command: "ls -la" })).toBe("bash ls *")
    expect(saved()).toEqual(["bash ls *"])
    expect(call("bash", { command: "ls -a" }).status).toBe(0)
  })
})

describe('"always" through the library: what the ask offers is what is saved', () => {
  it.each<[string, string, unknown, Record<string, unknown>, string[]]>([
    ["a .env read (the defaults' read *.env ask)", "read", { filePath: ".env" }, {}, [".env"]],
    ["a risky command", "bash", { command: "rm -rf build/" }, { bash: "ask" }, ["rm -rf build/"]],
    ["an ordinary command", "bash", { command: "ls -la" }, { bash: "ask" }, ["ls *"]],
    [
      "a command under the user's own rule",
      "bash",
      { command: "git status --short" },
      { bash: { "git status *": "ask" } },
      ["git status --short"],
    ],
  ])("%s", async (_name, tool, input, permission, expected) => {
    await writeFile(join(project, ".env"), "TOKEN=one\n")
    const offered: (readonly string[])[] = []
    const toolbelt = await createToolbelt({
      directory: project,
      dataDir: join(home, "data"),
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      sweep: false,
      config: { permission },
      decide: async (request) => {
        offered.push(request.always)
        return "always"
      },
    })
    try {
      await toolbelt.call({ tool, input, sessionID: "ses_library" })
      expect(offered).toEqual([expected])
      const saved = internals(toolbelt)
        .permission.approvals()
        .map((approval) => approval.pattern)
      expect(saved).toEqual(offered[0])
    } finally {
      toolbelt.close()
    }
  })
})
