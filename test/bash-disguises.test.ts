import type { SpawnSyncReturns } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "./fixtures/cli.ts"

/**
 * Disguised `rm` through the command line, as an agent's harness drives it:
 * `toolbelt call bash '{"command":…}' --cwd DIR --json` in a project whose toolbelt.json allows every
 * command but `rm`. Nothing may remove `victim`; a command the rules cannot check is refused (no
 * terminal, no --yes) with a message that says why and what to write instead.
 */
let root: string
let project: string
let victim: string

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-disguises-cli-"))
  project = join(root, "project")
  await mkdir(project)
  await writeFile(
    join(project, "toolbelt.json"),
    JSON.stringify({ permission: { bash: { "*": "allow", "rm *": "deny" } } }),
  )
  victim = join(project, "victim")
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

beforeEach(async () => {
  await writeFile(victim, "precious\n")
})

function call(command: string, ...flags: string[]): SpawnSyncReturns<string> {
  return runCli(
    ["call", "bash", JSON.stringify({ command, description: "x" }), "--cwd", project, "--json", ...flags],
    { cwd: project, home: root, timeout: 30_000 },
  )
}

describe("toolbelt call bash under {*: allow, rm *: deny}", () => {
  it.each([
    "FOO=1 rm victim",
    "LC_ALL=C rm victim",
    "coproc rm victim",
    "env -i PATH=/bin rm victim",
    "busybox rm victim",
    "alias r=rm; r victim",
    'c="rm victim"; $c',
  ])("denies %j: the rm rule applies, victim stays", (command) => {
    const result = call(command)
    expect(result.status).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: "error",
      error: expect.stringContaining('"rm *"'),
    })
    expect(existsSync(victim)).toBe(true)
  })

  it.each(["$(echo rm) victim", '"$@"', 'eval "$x"', 'sh -c "$CMD victim"', "echo victim | xargs -I{} {}"])(
    "refuses %j, which the rules cannot check, saying why and what to do",
    (command) => {
      const result = call(command)
      expect(result.status).toBe(1)
      const { status, error } = JSON.parse(result.stdout)
      expect(status).toBe("error")
      expect(error).toContain("no one could be asked, so it did not run")
      expect(error).toContain("stdin is not a terminal and --yes was not given")
      expect(error).not.toMatch(/user rejected/)
      expect(error).toMatch(/computed at run time|built when the command runs/)
      expect(error).toContain("Write each command literally")
      expect(existsSync(victim)).toBe(true)
    },
  )

  it("runs look-alikes that only name rm", () => {
    const result = call("echo rm victim; grep -c rm victim || true")
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: "completed",
      output: expect.stringContaining("rm victim"),
    })
    expect(existsSync(victim)).toBe(true)
  })

  it("runs a command it cannot check when the person approves it (--yes)", () => {
    const result = call("$(echo ls) victim", "--yes")
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: "completed",
      output: expect.stringContaining("victim"),
    })
  })
})
