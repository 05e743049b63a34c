// The config a project opens with: unknown keys of toolbelt's own files kept as warnings (said on stderr
// once by the process), the alias experimental.batch_tool in the config in effect. Real files, the real
// openProject (the first step of createToolbelt).
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { openProject } from "../../src/compose/open-project.ts"

let root: string
let project: string
let env: NodeJS.ProcessEnv

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-open-config-")))
  project = join(root, "project")
  await mkdir(project)
  env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "home", ".config") }
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function put(path: string, value: unknown): Promise<string> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, JSON.stringify(value))
  return path
}

const open = (extra: Partial<Parameters<typeof openProject>[0]> = {}) =>
  openProject({ directory: project, env, dataDir: join(root, "data"), ...extra })

it("lists each unknown key of the user's and the project's files, naming the file; trusted or not", async () => {
  const user = await put(join(root, "home", ".config", "toolbelt", "toolbelt.json"), { premission: {} })
  const own = await put(join(project, ".toolbelt", "toolbelt.json"), { tool_serch: "on", batch: true })
  await put(join(project, "opencode.json"), { model: "x/y", theme: "dark" })
  for (const trust of [true, false]) {
    const opened = await open({ trust })
    expect(opened.configWarnings).toEqual([
      `${user}: unknown key \`premission\` (did you mean \`permission\`?) — ignored`,
      `${own}: unknown key \`tool_serch\` (did you mean \`tool_search\`?) — ignored`,
    ])
  }
})

it("config given in code is not a file: no warnings", async () => {
  expect((await open({ config: { anything: 1 } })).configWarnings).toEqual([])
})

it("experimental.batch_tool is batch in the config in effect, from the user's file or a trusted project's", async () => {
  await put(join(project, "toolbelt.json"), { experimental: { batch_tool: true } })
  expect((await open({ trust: true })).config.batch).toBe(true)
  // An untrusted project's switch is left out, as its "batch" would be.
  expect((await open({ trust: false })).config.batch).toBeUndefined()
  await put(join(root, "home", ".config", "toolbelt", "toolbelt.json"), {
    experimental: { batch_tool: true },
  })
  expect((await open({ trust: false })).config.batch).toBe(true)
  // Given in code, the alias holds too.
  expect((await open({ config: { experimental: { batch_tool: true } } })).config.batch).toBe(true)
})
