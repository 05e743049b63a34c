// A session means the same thing from every surface: instruction files (AGENTS.md) that `read` attached
// once are not attached again by a later `toolbelt call` of the same `--session`, a new process each time.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "./fixtures/cli.ts"

let home: string
let project: string

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-seen-home-")))
  project = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-seen-project-")))
  await mkdir(join(project, "src"))
  await writeFile(join(project, "src", "AGENTS.md"), "Use tabs in src.\n")
  await writeFile(join(project, "src", "a.txt"), "alpha\n")
  await writeFile(join(project, "src", "b.txt"), "beta\n")
})

afterEach(async () => {
  for (const dir of [home, project]) await rm(dir, { recursive: true, force: true })
})

const read = (file: string, session: string) => {
  const result = runCli(
    ["call", "read", JSON.stringify({ filePath: join("src", file) }), "--session", session, "--json"],
    { cwd: project, home },
  )
  expect(result.stderr).toBe("")
  const answer = JSON.parse(result.stdout)
  expect(answer.status).toBe("completed")
  return answer as { output: string; metadata: { loaded: string[] } }
}

describe("instructions once per session, across CLI calls", () => {
  it("attaches src/AGENTS.md on the session's first read only, and again for another session", () => {
    const first = read("a.txt", "ses_one")
    expect(first.metadata.loaded).toEqual([join(project, "src", "AGENTS.md")])
    expect(first.output).toContain("Use tabs in src.")

    // A new process, the same session: already seen.
    const second = read("b.txt", "ses_one")
    expect(second.metadata.loaded).toEqual([])
    expect(second.output).not.toContain("Use tabs in src.")
    expect(read("a.txt", "ses_one").metadata.loaded).toEqual([])

    // Another session has not seen it.
    expect(read("a.txt", "ses_two").metadata.loaded).toEqual([join(project, "src", "AGENTS.md")])
  })
})
