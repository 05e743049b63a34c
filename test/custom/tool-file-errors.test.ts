// Tool files that do not load, through the command line: each is reported as a tool file (never as a
// plugin), naming the import, the export or the syntax error (with line:column) and what to do, and the
// same reason is given by `toolbelt tools` (stderr and "Not offered"), `toolbelt call` and the MCP
// server's instructions (the real MCP client over stdio). The other tool files still load.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliEnv, runCli } from "../fixtures/cli.ts"
import { connectStdio } from "../mcp/helpers.ts"

const TOOL = `{ description: "d", args: {}, execute: () => "x" }`

const FILES: Record<string, string> = {
  "bad_import.ts": `import pad from "left-pad"\nexport default ${TOOL}\n`,
  "missing_file.ts": `import { helper } from "./lib/helpers.ts"\nexport default ${TOOL}\n`,
  "bad_name.ts": `import { Tool, tol } from "@opencode-ai/plugin"\nexport default ${TOOL}\n`,
  "syntax.ts": `import { tool } from "@opencode-ai/plugin"\nexport default tool({\n  description: "d",,\n})\n`,
  "bad_params.ts": `import { Tool } from "@opencode-ai/plugin"
export default Tool.define("bad_params", async () => ({
  description: "Parameters that are not a schema.",
  parameters: { input: "string" },
  async execute() { return { title: "", output: "", metadata: {} } },
}))
`,
  "no_tool.ts": `export default { description: "half a tool" }\n`,
  "throws.ts": `const key = process.env.NO_SUCH_KEY\nif (!key) throw new Error("NO_SUCH_KEY is not set")\nexport default ${TOOL}\n`,
  "fine.ts": `import { tool } from "@opencode-ai/plugin"\nexport default tool({ description: "Still here.", args: {}, execute: () => "fine" })\n`,
}

// What each failure must say (after "not loaded from the tool file .opencode/tool/<name>.ts: "); the
// wording of a syntax error is the parser's, which Node versions change: only its place is pinned.
const EXPECTED = (project: string): Record<string, string | RegExp> => ({
  bad_import: `it imports "left-pad", which is not installed in ${project}/.opencode; run \`npm install left-pad\` there, or remove the import`,
  missing_file: `it imports "./lib/helpers.ts", which does not exist (${project}/.opencode/tool/lib/helpers.ts); create it, or fix the path`,
  bad_name:
    'it imports { tol } from "@opencode-ai/plugin", which has no export named tol (it exports tool, Tool); fix the name, or import it from where it is exported (line 1:16)',
  syntax: /^syntax error: [^()]+ \(line 3:20\)$/,
  bad_params:
    'export "default": bad_params: parameters must be a Zod schema (z.object({...})), got an object',
  no_tool:
    'exports no tool: its default export is an object without an execute function (keys: description); export default tool({ description, args, execute }) (from "@opencode-ai/plugin") or Tool.define(id, init)',
  throws: "threw while loading: Error: NO_SUCH_KEY is not set (line 2:17)",
})

let base: string
let project: string
let home: string
let tools: { status: number | null; stdout: string; stderr: string }

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-tool-errors-")))
  project = join(base, "project")
  home = join(base, "home")
  await mkdir(home, { recursive: true })
  for (const [name, content] of Object.entries(FILES)) {
    const file = join(project, ".opencode", "tool", name)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, content)
  }
  tools = runCli(["tools", "--trust"], { cwd: project, home })
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

/** What the stderr warning of `toolbelt tools` says about a tool file. */
const warned = (name: string) => {
  const file = join(project, ".opencode", "tool", `${name}.ts`)
  const line = tools.stderr
    .split("\n")
    .find((text) => text.startsWith(`warning: tool file ${file} not loaded: `))
  return line?.slice(`warning: tool file ${file} not loaded: `.length)
}
const reason = (name: string) => `not loaded from the tool file .opencode/tool/${name}.ts: ${warned(name)}`

describe("a tool file that does not load", () => {
  it.each(Object.keys(EXPECTED(".")))(
    "%s: toolbelt tools warns, naming it a tool file, and lists it under Not offered",
    (name) => {
      expect(tools.status, tools.stderr).toBe(0)
      const expected = EXPECTED(project)[name]!
      if (typeof expected === "string") expect(warned(name)).toBe(expected)
      else expect(warned(name)).toMatch(expected)
      const notOffered = tools.stdout.slice(tools.stdout.indexOf("\nNot offered:\n"))
      expect(notOffered).toMatch(new RegExp(`^${name} +${escapeRegExp(reason(name))}$`, "m"))
    },
  )

  it("is never called a plugin, and a syntax error only when it is one", () => {
    expect(tools.stderr).not.toContain("warning: plugin")
    expect(tools.stderr.match(/syntax error/g)).toHaveLength(1)
  })

  it("leaves the other tool files loaded", () => {
    expect(tools.stdout).toMatch(/^fine +\d+ +Still here\./m)
    const fine = runCli(["call", "fine", "{}", "--json", "--trust"], { cwd: project, home })
    expect(JSON.parse(fine.stdout)).toMatchObject({ status: "completed", output: "fine" })
  })

  it("toolbelt call answers with the same reason", () => {
    const result = runCli(["call", "bad_import", "{}", "--json", "--trust"], { cwd: project, home })
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain(`"bad_import" is not offered here: ${reason("bad_import")}`)
  })

  it("the MCP server's instructions give the same reasons", async () => {
    const env = cliEnv(home) as Record<string, string>
    const mcp = await connectStdio({ dir: project, env, remove: async () => {} }, { args: ["--trust"] })
    try {
      const instructions = mcp.client.getInstructions() ?? ""
      expect(instructions).toContain("These tools are not offered because their tool files did not load:")
      for (const name of ["bad_import", "syntax", "bad_params"]) {
        expect(instructions).toContain(`"${name}" (${reason(name)})`)
      }
      const { tools: listed } = await mcp.client.listTools()
      expect(listed.map((tool) => tool.name)).toContain("fine")
    } finally {
      await mcp.close()
    }
  })
})

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
}
