// Custom tools and plugins loaded by Node itself, in a child process, as the command line loads them:
// Node strips the types, the resolution hook maps the helper's specifiers, and Node's own errors are
// the ones reported. (In-process tests run under the test runner's loader instead.)
import { spawnSync } from "node:child_process"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TempProject, tempProject } from "./project.ts"

const repo = resolve(import.meta.dirname, "..", "..")
const src = (path: string) => pathToFileURL(resolve(repo, "src", path)).href

let project: TempProject
let report: {
  loaded: { name: string; file: string }[]
  errors: { file: string; error: string }[]
  pluginErrors: { spec: string; error: string }[]
  results: Record<string, { status: string; output?: string; title?: string; error?: string }>
  sources: Record<string, string>
}

beforeAll(async () => {
  project = await tempProject()
  await project.write(
    "packages/app/.opencode/tools/greet.ts",
    `import { tool } from "@opencode-ai/plugin"
interface Greeting { readonly text: string }
const make = (name: string): Greeting => ({ text: \`hello \${name}\` })
export default tool({
  description: "Greets.",
  args: { name: tool.schema.string().describe("who") },
  execute: async ({ name }) => make(name).text,
})
`,
  )
  await project.write(
    "packages/app/.toolbelt/tools/stats.js",
    `import { tool } from "toolbelt/plugin"
export default tool({
  description: "Counts words.",
  args: { text: tool.schema.string() },
  execute: async ({ text }) => ({ title: "counted", output: String(text.split(" ").length) }),
})
`,
  )
  await project.write(
    "packages/app/.toolbelt/tools/later.ts",
    `const value: string = await Promise.resolve("top-level await")
export default { description: "Uses top-level await.", args: {}, execute: () => value }
`,
  )
  await project.write(
    "packages/app/.toolbelt/tools/commonjs.js",
    `module.exports = { description: "CommonJS.", args: {}, execute: () => "from commonjs" }\n`,
  )
  await project.write("packages/app/.toolbelt/tools/broken.js", `export default {\n  a: = 1\n}\n`)
  await project.write("packages/app/.toolbelt/tools/brokents.ts", `const x: number = \nexport default {\n`)
  await project.write(
    "node_modules/pkg/x.ts",
    `export default { description: "x", args: {}, execute: () => "x" }\n`,
  )
  await project.link("packages/app/.toolbelt/tools/nm.ts", "node_modules/pkg/x.ts")
  await project.write(
    "packages/app/.toolbelt/tools/nested.ts",
    `import x from "../../../../node_modules/pkg/x.ts"\nexport default x\n`,
  )
  await project.write(
    "plugins/opencode.ts",
    `import { tool, type Plugin } from "@opencode-ai/plugin"
export const Shouter: Plugin = async () => ({
  "tool.execute.after": async (input, output) => { if (input.tool === "shout") output.title = "after hook" },
  tool: { shout: tool({ description: "Shouts.", args: { text: tool.schema.string() }, execute: async ({ text }) => text.toUpperCase() }) },
})
`,
  )
  const script = await project.write(
    "run.mts",
    `import { createToolbelt } from ${JSON.stringify(src("compose/toolbelt.ts"))}
import { installCustomTools } from ${JSON.stringify(src("adapters/plugins/custom-tools.ts"))}
import { internals } from ${JSON.stringify(src("compose/internals.ts"))}
const env = { HOME: ${JSON.stringify(project.home)} }
const toolbelt = await createToolbelt({
  directory: ${JSON.stringify(project.directory)},
  dataDir: ${JSON.stringify(project.dataDir)},
  store: "memory",
  sweep: false,
  customTools: false,
  env,
  config: { plugin: [${JSON.stringify(`${project.root}/plugins/opencode.ts`)}] },
})
const custom = await installCustomTools({ directory: toolbelt.directory, worktree: toolbelt.worktree, registry: internals(toolbelt).registry, env })
const calls = { greet: { name: "Ada" }, stats: { text: "a b c" }, later: {}, commonjs: {}, shout: { text: "hey" } }
const results = {}
for (const [tool, input] of Object.entries(calls)) {
  const { part, ...settled } = await toolbelt.call({ tool, input })
  results[tool] = settled
}
const sources = Object.fromEntries((await toolbelt.tools()).map((tool) => [tool.name, tool.entry.source]))
toolbelt.close()
console.log(JSON.stringify({ loaded: custom.loaded, errors: custom.errors, pluginErrors: toolbelt.pluginErrors, results, sources }))
`,
  )
  const run = spawnSync(process.execPath, [script], {
    cwd: project.directory,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: project.home },
    timeout: 30_000,
  })
  if (run.status !== 0) throw new Error(`runner failed (${run.status}): ${run.stderr}`)
  report = JSON.parse(run.stdout)
})

afterAll(async () => {
  await project?.remove()
})

describe("custom tools under Node, without a build step", () => {
  it("loads TypeScript and JavaScript files, opencode's helper and toolbelt's, top-level await, CommonJS", () => {
    expect(report.loaded.map((tool) => tool.name).sort()).toEqual(["commonjs", "greet", "later", "stats"])
    expect(report.results.greet).toMatchObject({ status: "completed", output: "hello Ada" })
    expect(report.results.stats).toMatchObject({ status: "completed", title: "counted", output: "3" })
    expect(report.results.later).toMatchObject({ status: "completed", output: "top-level await" })
    expect(report.results.commonjs).toMatchObject({ status: "completed", output: "from commonjs" })
    expect(report.sources.greet).toBe("custom:packages/app/.opencode/tools/greet.ts")
  })

  it("loads an opencode plugin that imports its helper package", () => {
    expect(report.pluginErrors).toEqual([])
    expect(report.results.shout).toMatchObject({ status: "completed", title: "after hook", output: "HEY" })
  })

  it("reports Node's syntax errors in one line, with the line for TypeScript", () => {
    const errorOf = (name: string) => report.errors.find((error) => error.file.endsWith(`/${name}`))?.error
    expect(errorOf("broken.js")).toBe("syntax error: Unexpected token '=' (line 2:6)")
    expect(errorOf("brokents.ts")).toBe("syntax error: Expression expected (line 2:1)")
  })

  it("explains TypeScript under node_modules, directly or imported", () => {
    const errorOf = (name: string) => report.errors.find((error) => error.file.endsWith(`/${name}`))?.error
    const why = /node_modules\/pkg\/x\.ts is TypeScript under node_modules, and Node does not strip types/
    expect(errorOf("nm.ts")).toMatch(why)
    expect(errorOf("nested.ts")).toMatch(why)
    expect(report.errors, JSON.stringify(report.errors, null, 2)).toHaveLength(4)
  })
})
