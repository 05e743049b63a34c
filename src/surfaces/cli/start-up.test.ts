import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Writable } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createToolbelt } from "../../compose/toolbelt.ts"
import type { IO } from "./io.ts"
import { warnPluginErrors } from "./start-up.ts"

let base: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-start-up-")))
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

/** A command's IO whose stderr is kept as text. */
function capture(): { io: IO; stderr: () => string } {
  let text = ""
  const stderr = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk)
      done()
    },
  })
  const io = { stdout: stderr, stderr, stdin: process.stdin, env: {}, cwd: base } as IO
  return { io, stderr: () => text }
}

describe("warnPluginErrors", () => {
  it("names each thing that did not load by its kind: tool file, skill, agent file", async () => {
    const project = join(base, "project")
    const files: Record<string, string> = {
      ".toolbelt/tool/broken.ts": "export default {\n",
      ".toolbelt/skills/broken/SKILL.md": "no frontmatter here\n",
      ".toolbelt/agents/broken.md": "---\nmode: [\n---\nx\n",
    }
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(project, path)), { recursive: true })
      await writeFile(join(project, path), content)
    }
    await using toolbelt = await createToolbelt({
      directory: project,
      dataDir: join(base, "data"),
      store: "memory",
      sweep: false,
      trust: true,
      env: { PATH: process.env.PATH, HOME: join(base, "home") },
    })
    const { io, stderr } = capture()
    warnPluginErrors(toolbelt, io)
    const lines = stderr().trimEnd().split("\n")
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^warning: tool file .*broken\.ts not loaded: /),
        expect.stringMatching(/^warning: skill .*SKILL\.md not loaded: /),
        expect.stringMatching(/^warning: agent file .*broken\.md not loaded: /),
      ]),
    )
    expect(lines).toHaveLength(3)
    expect(stderr()).not.toContain("warning: plugin")
  })
})
