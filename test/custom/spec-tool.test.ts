// The spec's "Adding a Custom Tool", copied word for word (fixtures/spec-my-tool.ts.txt) into
// `.opencode/tool/my_tool.ts` of a project with no node_modules at all, through the command line as a
// person runs it: listed as `my_custom_tool` (its Tool.define id, the name the spec's step 3 uses; the
// file's name `my_tool` is an alias, callable and not listed), asks before running when a rule asks,
// runs when allowed. Beside it opencode's
// own `tool()` form and toolbelt's `agent-toolbelt/tool`, and a project whose own zod must not be used.
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createToolbelt } from "../../src/compose/toolbelt.ts"
import type { ToolPart } from "../../src/platform/store/part.ts"
import { runCli } from "../fixtures/cli.ts"
import { HELPERS, SPEC_TOOL } from "./fixtures/spec-tool.ts"

const SPEC = SPEC_TOOL

const FILES: Record<string, string> = {
  ".opencode/tool/my_tool.ts": SPEC + HELPERS,
  // opencode's real export: tool({ description, args, execute }) with tool.schema = zod.
  ".opencode/tool/greet.ts": `import { tool } from "@opencode-ai/plugin"
import { z } from "zod"
export default tool({
  description: "Greets someone.",
  args: { name: tool.schema.string().describe("who"), loud: z.boolean().optional() },
  async execute({ name, loud }, ctx) {
    ctx.metadata({ title: "greeting" })
    const text = \`hello \${name}\`
    return loud ? text.toUpperCase() : text
  },
})
`,
  // toolbelt's own tool API, as the package exports it.
  ".opencode/tool/count.ts": `import * as Tool from "agent-toolbelt/tool"
import z from "zod/v4"
export default Tool.define("count", {
  description: "Counts words.",
  parameters: z.object({ text: z.string() }),
  async execute({ text }) {
    return { title: "counted", output: String(text.split(/\\s+/).filter(Boolean).length), metadata: {} }
  },
})
`,
}

let base: string
let project: string
let home: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-spec-tool-")))
  project = join(base, "project")
  home = join(base, "home")
  await mkdir(home, { recursive: true })
  for (const [path, content] of Object.entries(FILES)) {
    await mkdir(dirname(join(project, path)), { recursive: true })
    await writeFile(join(project, path), content)
  }
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: project, home, env })
const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>

describe("the spec's custom tool, verbatim, in a project with no node_modules", () => {
  it("is the spec's text, and nothing near the project can answer its imports", () => {
    expect(SPEC).toContain('import { Tool } from "@opencode-ai/plugin"\nimport z from "zod"\n')
    expect(SPEC).toContain('export default Tool.define("my_custom_tool", async () => {')
    for (let dir = project; dirname(dir) !== dir; dir = dirname(dir)) {
      expect(existsSync(join(dir, "node_modules")), dir).toBe(false)
    }
  })

  it("is listed by toolbelt tools once the project is trusted, with its schema from zod", () => {
    const result = cli(["tools", "--json", "--trust"])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stderr).not.toContain("not loaded")
    const tools = json(result.stdout) as {
      name: string
      description: string
      inputSchema: any
      source: string
    }[]
    const mine = tools.find((tool) => tool.name === "my_custom_tool")
    // Listed once, by its id; the file's name is not listed.
    expect(tools.filter((tool) => tool.name === "my_custom_tool")).toHaveLength(1)
    expect(tools.map((tool) => tool.name)).not.toContain("my_tool")
    expect(mine).toMatchObject({
      description: "Does something custom",
      source: "custom:.opencode/tool/my_tool.ts",
      inputSchema: {
        type: "object",
        properties: {
          input: { type: "string", description: "Input parameter" },
          option: { type: "boolean" },
        },
        required: ["input"],
      },
    })
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["greet", "count"]))
  })

  it("is not loaded while the project is untrusted", () => {
    const result = cli(["call", "my_tool", '{"input":"x"}', "--json"])
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain('"my_tool" comes from the tool file')
    expect(existsSync(join(project, "work.log"))).toBe(false)
  })

  it("asks before running when a rule asks: without a person, --json refuses with the ask's text and nothing runs", () => {
    const result = cli(["call", "my_custom_tool", '{"input":"test"}', "--json", "--trust"], {
      TOOLBELT_PERMISSION: JSON.stringify({ my_custom_tool: "ask" }),
    })
    expect(result.status).toBe(1)
    expect(json(result.stdout)).toMatchObject({
      status: "error",
      error: expect.stringContaining("permission my_custom_tool for test needs approval"),
    })
    expect(existsSync(join(project, "work.log"))).toBe(false)
  })

  it("runs when the ask is approved (--yes), and when the rules allow it; by its id and by its file's name", () => {
    const approved = cli(["call", "my_custom_tool", '{"input":"test"}', "--json", "--yes"], {
      TOOLBELT_PERMISSION: JSON.stringify({ my_custom_tool: "ask" }),
      TOOLBELT_TRUST: "1",
    })
    expect(approved.status, approved.stderr).toBe(0)
    expect(json(approved.stdout)).toMatchObject({
      status: "completed",
      title: "Custom work completed",
      output: "done: TEST",
      metadata: { status: "success" },
    })
    const allowed = cli(["call", "my_tool", '{"input":"again","option":true}', "--json", "--trust"], {
      TOOLBELT_PERMISSION: JSON.stringify({ my_custom_tool: "allow" }),
    })
    expect(json(allowed.stdout)).toMatchObject({ status: "completed", output: "done: AGAIN" })
  })

  it("is refused when a rule denies the spec's permission", async () => {
    const before = await readFile(join(project, "work.log"), "utf8")
    const denied = cli(["call", "my_custom_tool", '{"input":"no"}', "--json", "--trust"], {
      TOOLBELT_PERMISSION: JSON.stringify({ my_custom_tool: "deny" }),
    })
    expect(json(denied.stdout)).toMatchObject({ status: "error" })
    expect(await readFile(join(project, "work.log"), "utf8")).toBe(before)
  })

  it("runs opencode's tool() form and toolbelt's own Tool.define", () => {
    const greet = cli(["call", "greet", '{"name":"Ada","loud":true}', "--json", "--trust"])
    expect(json(greet.stdout)).toMatchObject({ status: "completed", output: "HELLO ADA" })
    const count = cli(["call", "count", '{"text":"a b c"}', "--json", "--trust"])
    expect(json(count.stdout)).toMatchObject({ status: "completed", title: "counted", output: "3" })
  })

  it("uses toolbelt's zod, not the project's own (another major version here)", async () => {
    const own = join(base, "with-zod")
    await mkdir(join(own, ".opencode", "tool"), { recursive: true })
    await writeFile(join(own, ".opencode", "tool", "my_tool.ts"), SPEC + HELPERS)
    // A zod that is not zod 4: if the tool file got it, z.object would not exist.
    await mkdir(join(own, "node_modules", "zod"), { recursive: true })
    await writeFile(
      join(own, "node_modules", "zod", "package.json"),
      JSON.stringify({ name: "zod", version: "3.0.0-project", type: "module", main: "index.js" }),
    )
    await writeFile(
      join(own, "node_modules", "zod", "index.js"),
      "export default { project: true }\nexport const z = {}\n",
    )
    const result = runCli(["call", "my_tool", '{"input":"own"}', "--json", "--trust"], { cwd: own, home })
    expect(result.stderr).not.toContain("not loaded")
    expect(json(result.stdout)).toMatchObject({ status: "completed", output: "done: OWN" })
  })
})

describe("the spec's context calls, in process", () => {
  it("ctx.metadata({ progress: 50 }) reaches the running call as its metadata; ctx.ask goes to the rules", async () => {
    const parts: ToolPart[] = []
    const toolbelt = await createToolbelt({
      directory: project,
      dataDir: join(base, "data"),
      store: "memory",
      sweep: false,
      trust: true,
      env: { PATH: process.env.PATH, HOME: home },
      config: { permission: { my_custom_tool: { "*": "allow", secret: "deny" } } },
      parts: (part) => {
        parts.push(structuredClone(part))
      },
    })
    try {
      const result = await toolbelt.call({ tool: "my_custom_tool", input: { input: "progress" } })
      expect(result).toMatchObject({ status: "completed", output: "done: PROGRESS" })
      const running = parts.filter((part) => part.state.status === "running")
      expect(running.map((part) => (part.state as { metadata?: unknown }).metadata)).toContainEqual({
        progress: 50,
      })
      const denied = await toolbelt.call({ tool: "my_tool", input: { input: "secret" } })
      expect(denied).toMatchObject({ status: "error", error: expect.stringMatching(/my_custom_tool/) })
    } finally {
      await toolbelt.close()
    }
  })
})
