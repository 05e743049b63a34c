// A tool file whose default export is made with `Tool.define(id, ...)` is registered under that id (the
// spec's `.opencode/tool/my_tool.ts` defines `my_custom_tool`, the name its user and its config.toml
// use); the file's name stays callable as an alias that is never listed. opencode's `tool()` keeps the
// file's name, named exports `<file>_<export>`. Two files of one directory defining one id: the first
// keeps it, the other is reported under "Not offered" naming both files. Real files, the real loader.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../src/compose/toolbelt.ts"
import { runCli } from "../fixtures/cli.ts"

/** A Tool.define tool file (the spec's form) whose tool answers `answer`. */
const defined = (id: string, answer: string) => `import { Tool } from "@opencode-ai/plugin"
import z from "zod"
export default Tool.define(${JSON.stringify(id)}, async () => ({
  description: "Answers ${answer}.",
  parameters: z.object({}),
  async execute() {
    return { title: "", output: ${JSON.stringify(answer)}, metadata: {} }
  },
}))
`

/** An opencode tool() file: named by its file. */
const opencodeTool = (answer: string) => `import { tool } from "@opencode-ai/plugin"
export default tool({ description: "Answers ${answer}.", args: {}, execute: async () => ${JSON.stringify(answer)} })
`

let base: string
let project: string
let home: string
let toolbelt: Toolbelt

const FILES = (): Record<string, string> => ({
  // The spec's naming: file my_tool.ts, id my_custom_tool.
  ".opencode/tool/my_tool.ts": defined("my_custom_tool", "mine"),
  // The same id again in the same directory: my_tool.ts came first, so this one is reported.
  ".opencode/tool/zz_copy.ts": defined("my_custom_tool", "copy"),
  // An id that is its file's name: no alias.
  ".opencode/tool/same.ts": defined("same", "same"),
  // A define id beside a named export: the export keeps `<file>_<export>`.
  ".opencode/tool/renamed.ts": `${defined("alpha", "alpha")}
import { tool } from "@opencode-ai/plugin"
export const extra = tool({ description: "Extra.", args: {}, execute: async () => "extra" })
`,
  // opencode's tool() named by its file, losing that name to an id defined by an earlier file: the
  // loser has no other name, so it is listed by its file.
  ".opencode/tool/a_beta.ts": defined("beta", "defined beta"),
  ".opencode/tool/beta.ts": opencodeTool("file beta"),
  // The same id in the user's global dir and in the project: the project (more specific) wins.
  ".opencode/tool/pdef.ts": defined("shared_id", "project"),
  [join(home, ".config", "opencode", "tool", "gdef.ts")]: defined("shared_id", "global"),
})

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-define-ids-")))
  project = join(base, "project")
  home = join(base, "home")
  await mkdir(join(project, ".git"), { recursive: true })
  for (const [path, content] of Object.entries(FILES())) {
    const file = path.startsWith("/") ? path : join(project, path)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, content)
  }
  toolbelt = await createToolbelt({
    directory: project,
    dataDir: join(base, "data"),
    store: "memory",
    sweep: false,
    trust: true,
    mcp: false,
    env: { PATH: process.env.PATH, HOME: home },
  })
})

afterAll(async () => {
  await toolbelt?.close()
  await rm(base, { recursive: true, force: true })
})

const output = async (tool: string) => {
  const result = await toolbelt.call({ tool, input: {} })
  return result.status === "completed" ? result.output : `error: ${result.error}`
}

describe("a Tool.define default export is named by its id", () => {
  it("lists the id once, never the file's name", async () => {
    const names = (await toolbelt.tools()).map((tool) => tool.name)
    for (const name of ["my_custom_tool", "same", "alpha", "renamed_extra", "beta", "shared_id"])
      expect(
        names.filter((each) => each === name),
        name,
      ).toHaveLength(1)
    for (const name of ["my_tool", "zz_copy", "renamed", "a_beta", "pdef", "gdef"])
      expect(names, name).not.toContain(name)
    expect(internals(toolbelt).registry.resolve("my_custom_tool")?.source).toBe(
      "custom:.opencode/tool/my_tool.ts",
    )
  })

  it("answers to the id and to the file's name", async () => {
    expect(await output("my_custom_tool")).toBe("mine")
    expect(await output("my_tool")).toBe("mine")
    expect(await output("renamed")).toBe("alpha")
    expect(await output("renamed_extra")).toBe("extra")
    expect(await output("same")).toBe("same")
  })

  it("lets the more specific directory's definition of an id win", async () => {
    expect(await output("shared_id")).toBe("project")
    expect(await output("pdef")).toBe("project")
  })
})

describe("two files of one directory defining one id", () => {
  it("keeps the first; the other is not offered, naming both files", async () => {
    const withheld = await toolbelt.withheld()
    const copy = withheld.find((tool) => tool.name === "zz_copy")
    expect(copy?.reason).toBe(
      'not loaded from the tool file .opencode/tool/zz_copy.ts: defines the tool "my_custom_tool", which .opencode/tool/my_tool.ts already defines (the first file in name order keeps it); give one of them another id in Tool.define',
    )
    // The tool that kept the name is offered, and not listed as withheld.
    expect(withheld.map((tool) => tool.name)).not.toContain("my_custom_tool")
    expect(await output("my_custom_tool")).toBe("mine")
  })

  it("lists a loser with no other name by its file", async () => {
    const withheld = await toolbelt.withheld()
    expect(withheld.find((tool) => tool.name === "custom:.opencode/tool/beta.ts")?.reason).toContain(
      'defines the tool "beta", which .opencode/tool/a_beta.ts already defines',
    )
    expect(withheld.map((tool) => tool.name)).not.toContain("beta")
    expect(await output("beta")).toBe("defined beta")
  })
})

describe("at the command line", { timeout: 120_000 }, () => {
  it("toolbelt tools lists the id once and the clash under Not offered; call answers to both names", () => {
    const cli = (args: string[]) => runCli(args, { cwd: project, home })
    const tools = cli(["tools", "--trust"])
    expect(tools.status, tools.stderr).toBe(0)
    const [offered, notOffered = ""] = tools.stdout.split("\nNot offered:\n")
    expect(offered!.match(/^my_custom_tool\s/gm)).toHaveLength(1)
    expect(offered).not.toMatch(/^my_tool\s/m)
    expect(notOffered).toMatch(/^zz_copy\s+not loaded from the tool file \.opencode\/tool\/zz_copy\.ts: /m)
    expect(notOffered).toContain("which .opencode/tool/my_tool.ts already defines")
    expect(tools.stderr).toContain(
      `warning: tool file ${join(project, ".opencode", "tool", "zz_copy.ts")} not loaded`,
    )

    for (const name of ["my_tool", "my_custom_tool"]) {
      const called = cli(["call", name, "{}", "--json", "--trust"])
      expect(called.status, called.stderr).toBe(0)
      expect(JSON.parse(called.stdout)).toMatchObject({ status: "completed", output: "mine" })
    }
    const refused = cli(["call", "zz_copy", "{}", "--json", "--trust"])
    expect(refused.status).toBe(2)
    expect(JSON.parse(refused.stdout).error).toContain(
      '"zz_copy" is not offered here: not loaded from the tool file .opencode/tool/zz_copy.ts',
    )
  })
})
