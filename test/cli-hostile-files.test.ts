// Through `toolbelt call` as a black-box user drives it: a dangling symlink inside the project cannot
// carry a write outside (without --yes the external_directory ask is rejected), and an edit of a FIFO
// returns with a clear error and the process exits on its own.

import { execFileSync, type SpawnSyncReturns } from "node:child_process"
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "./fixtures/cli.ts"

const _root = resolve(import.meta.dirname, "..")
let base: string
let project: string
let outside: string
let home: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-cli-hostile-")))
  project = join(base, "project")
  outside = join(base, "outside")
  home = join(base, "home")
  await mkdir(project)
  await mkdir(outside)
  await mkdir(home)
  await mkdir(join(base, "tmp"))
  await symlink(join(outside, "authorized_keys"), join(project, "keys"))
  await symlink("../outside/not/yet", join(project, "dir"))
  execFileSync("mkfifo", [join(project, "pipe")])
  await writeFile(join(project, "source.txt"), "s\n")
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

function call(tool: string, input: unknown): SpawnSyncReturns<string> {
  // TMPDIR: the run's temp files stay in the test's own directory.
  return runCli(["call", tool, JSON.stringify(input), "--cwd", project, "--json"], {
    cwd: project,
    home,
    env: { TMPDIR: join(base, "tmp") },
  })
}

const patch = (body: string) => ({ patchText: `*** Begin Patch\n${body}\n*** End Patch` })

describe("toolbelt call: dangling symlinks do not carry writes outside", () => {
  const cases: [string, string, unknown][] = [
    ["write through a dangling file link", "write", { filePath: "keys", content: "ssh-ed25519 AAAA" }],
    [
      "edit creating through a dangling file link",
      "edit",
      { filePath: "keys", oldString: "", newString: "x" },
    ],
    [
      "multiedit creating under a dangling directory link",
      "multiedit",
      { filePath: "dir/a/b.txt", edits: [{ oldString: "", newString: "x" }] },
    ],
    [
      "apply_patch adding under a dangling directory link",
      "apply_patch",
      patch("*** Add File: dir/new.txt\n+x"),
    ],
    [
      "apply_patch moving onto a dangling file link",
      "apply_patch",
      patch("*** Update File: source.txt\n*** Move to: keys"),
    ],
  ]
  for (const [name, tool, input] of cases) {
    it(name, async () => {
      const result = call(tool, input)
      expect(result.status).toBe(1)
      const outcome = JSON.parse(result.stdout)
      expect(outcome).toMatchObject({ status: "error" })
      // The refusal is said once, in the call's own error: what needed approval, and that no one was asked.
      expect(outcome.error).toContain(`permission external_directory for ${outside}/`)
      expect(outcome.error).toContain("no one could be asked")
      expect(await readdir(outside)).toEqual([])
    })
  }
})

describe("toolbelt call: FIFOs are refused, and the process exits on its own", () => {
  const cases: [string, unknown][] = [
    ["edit", { filePath: "pipe", oldString: "a", newString: "b" }],
    ["multiedit", { filePath: "pipe", edits: [{ oldString: "a", newString: "b" }] }],
    ["apply_patch", patch("*** Update File: pipe\n@@\n-a\n+b")],
  ]
  for (const [tool, input] of cases) {
    it(tool, () => {
      const result = call(tool, input)
      expect(result.signal).toBeNull()
      expect(result.status).toBe(1)
      expect(JSON.parse(result.stdout).error).toMatch(/named pipe \(FIFO\), not a regular file/)
    })
  }
})
