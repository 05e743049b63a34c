import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installCustomTools } from "../../src/adapters/plugins/custom-tools.ts"
import { internals } from "../../src/compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../src/compose/toolbelt.ts"
import type { ToolPart } from "../../src/platform/store/part.ts"
import { type TempProject, tempProject } from "./project.ts"

// One project holds every kind of custom tool file; each test calls the tools through the real pipeline.
let project: TempProject
let toolbelt: Toolbelt
let installed: Awaited<ReturnType<typeof installCustomTools>>
const parts: ToolPart[] = []

const FILES: Record<string, string> = {
  // opencode's format, written for opencode: imports its helper package (not installed here).
  "packages/app/.opencode/tools/greet.ts": `
import { tool } from "@opencode-ai/plugin"

type Style = "plain" | "loud"
const style: Style = "plain"

export default tool({
  description: "Greets someone.",
  args: {
    name: tool.schema.string().describe("who to greet"),
    times: tool.schema.number().int().min(1).optional().describe("how many times"),
  },
  async execute(args, context) {
    return Array.from({ length: args.times ?? 1 }, () => \`hello \${args.name} (\${style})\`).join("\\n")
  },
})

export const shout = tool({
  description: "Greets someone loudly.",
  args: { name: tool.schema.string() },
  execute: async ({ name }) => \`HELLO \${name.toUpperCase()}\`,
})

// Not tools: ignored.
export const VERSION = "1.0.0"
export function helper() { return 1 }
export const config = { description: "looks a bit like a tool", retries: 2 }
`,
  // JavaScript, toolbelt's own helper, an object result with a title and metadata.
  "packages/app/.toolbelt/tools/stats.js": `
import { tool } from "toolbelt/plugin"

export default tool({
  description: "Counts words.",
  args: { text: tool.schema.string() },
  async execute({ text }) {
    const words = text.split(/\\s+/).filter(Boolean).length
    return { title: \`\${words} words\`, output: \`words: \${words}\`, metadata: { words, truncated: true } }
  },
})
`,
  // Legacy: args are JSON Schema fragments, all required; no helper import at all.
  "packages/app/.opencode/tool/legacy.mjs": `
export default {
  description: "A tool with JSON-schema args.",
  args: {
    path: { type: "string", description: "a path" },
    depth: { type: "integer", minimum: 0 },
  },
  execute: async (args) => JSON.stringify(args),
}
`,
  // args null: no arguments.
  "packages/app/.toolbelt/tools/ping.ts": `
const reply: string = "pong"
export default { description: "Answers pong.", args: null, execute: async (): Promise<string> => reply }
export const bare = { description: "No args key at all.", execute: () => "bare" }
`,
  // The context: ask (a Promise), metadata, and the identity fields.
  "packages/app/.toolbelt/tools/deploy.ts": `
import { tool, type ToolContext } from "toolbelt/plugin"

export default tool({
  description: "Deploys to an environment.",
  args: { env: tool.schema.enum(["staging", "prod"]) },
  async execute({ env }, ctx: ToolContext) {
    ctx.metadata({ title: \`deploying \${env}\`, metadata: { step: "asking" } })
    const asked = ctx.ask({ permission: "deploy", patterns: [env], always: [env], metadata: { env } })
    if (!(asked instanceof Promise)) throw new Error("ask must return a Promise")
    await asked
    ctx.metadata({ metadata: { step: "done" } })
    return JSON.stringify({
      env,
      sessionID: ctx.sessionID,
      messageID: ctx.messageID,
      agent: ctx.agent,
      directory: ctx.directory,
      worktree: ctx.worktree,
      aborted: ctx.abort.aborted,
    })
  },
})
`,
  // Overrides the built-in read.
  "packages/app/.toolbelt/tools/read.ts": `
import { tool } from "@opencode-ai/plugin"
export default tool({
  description: "A project-specific read.",
  args: { filePath: tool.schema.string() },
  execute: async ({ filePath }) => \`custom read of \${filePath}\`,
})
`,
  // Much output: the runtime bounds it.
  "packages/app/.toolbelt/tools/flood.ts": `
export default {
  description: "Prints many lines.",
  args: {},
  execute: async () => Array.from({ length: 5000 }, (_, i) => \`line \${i}\`).join("\\n"),
}
`,
  // A tool in the repository root's .opencode (walk-up), and one also defined closer to the project.
  ".opencode/tools/rootonly.ts": `export default { description: "From the root.", args: {}, execute: () => "root" }\n`,
  ".opencode/tools/where.ts": `export default { description: "Root version.", args: {}, execute: () => "root" }\n`,
  "packages/app/.toolbelt/tools/where.ts": `export default { description: "Project version.", args: {}, execute: () => "project" }\n`,
  // A symlinked file.
  "shared/linked-impl.ts": `export default { description: "Through a symlink.", args: {}, execute: () => "linked" }\n`,
  // Broken files: a syntax error, a throw at import, a bad export next to a good one.
  "packages/app/.toolbelt/tools/broken.ts": `export default {\n  description: "oops",\n  args: {,\n}\n`,
  "packages/app/.toolbelt/tools/explode.js": `throw new Error("exploded at import\\nsecond line")\n`,
  "packages/app/.toolbelt/tools/badargs.ts": `
export default { description: "bad", args: "not an object", execute: () => "x" }
export const fine = { description: "still loads", args: {}, execute: () => "fine" }
`,
  // Dotfiles are tool files too (this one's name is not a valid tool name: reported).
  "packages/app/.toolbelt/tools/.hidden.ts": `export default { description: "hidden", args: {}, execute: () => "h" }\n`,
  // A file that is not TypeScript/JavaScript, and a declaration file: not tool files.
  "packages/app/.toolbelt/tools/notes.md": "# not a tool\n",
  "packages/app/.toolbelt/tools/types.d.ts": "export declare const x: number\n",
  // TypeScript under node_modules cannot be stripped by Node.
  "node_modules/some-pkg/nm.ts": `export default { description: "x", args: {}, execute: () => "x" }\n`,
}

beforeAll(async () => {
  project = await tempProject()
  for (const [path, content] of Object.entries(FILES)) await project.write(path, content)
  // Global config dirs: opencode's (compatibility) and toolbelt's; the project's `where` beats them.
  await project.write(
    `${project.home}/.config/opencode/tools/where.ts`,
    `export default { description: "Global opencode version.", args: {}, execute: () => "global" }\n`,
  )
  await project.write(
    `${project.home}/.config/toolbelt/tools/globalonly.mts`,
    `export default { description: "Global only.", args: {}, execute: () => "global" }\n`,
  )
  await project.link("packages/app/.toolbelt/tools/linked.ts", "shared/linked-impl.ts")
  await project.link("packages/app/.toolbelt/tools/nm.ts", "node_modules/some-pkg/nm.ts")
  // Dangling links: an editor's lock file (skipped), and a link to a file that is gone (reported).
  await project.link("packages/app/.toolbelt/tools/.#stats.js", "nowhere/lock")
  await project.link("packages/app/.toolbelt/tools/gone.ts", "nowhere/gone.ts")

  toolbelt = await createToolbelt({
    directory: project.directory,
    dataDir: project.dataDir,
    store: "memory",
    sweep: false,
    customTools: false,
    env: project.env,
    config: { permission: { deploy: { "*": "allow", prod: "deny" } } },
    parts: (part) => {
      parts.push(part)
    },
  })
  installed = await installCustomTools({
    directory: toolbelt.directory,
    worktree: toolbelt.worktree,
    registry: internals(toolbelt).registry,
    env: project.env,
  })
})

afterAll(async () => {
  // Awaited: its token counts may still be written into the data dir the project removes.
  await toolbelt?.close()
  await project?.remove()
})

const call = (tool: string, input: Record<string, unknown> = {}) => toolbelt.call({ tool, input })

describe("discovery and naming", () => {
  it("finds the tool files of every directory and names them as opencode does", () => {
    const names = installed.loaded.map((tool) => tool.name).sort()
    expect(names).toEqual(
      [
        "badargs_fine",
        "deploy",
        "flood",
        "globalonly",
        "greet",
        "greet_shout",
        "legacy",
        "linked",
        "ping",
        "ping_bare",
        "read",
        "rootonly",
        "stats",
        "where",
      ].sort(),
    )
    expect(toolbelt.worktree).toBe(project.root)
  })

  it("ignores exports that are not tools", async () => {
    const names = (await toolbelt.tools()).map((tool) => tool.name)
    for (const name of ["greet_VERSION", "greet_helper", "greet_config", "notes", "types"]) {
      expect(names).not.toContain(name)
    }
  })

  it("lets the closest directory win: project over the root's .opencode over the global dirs", async () => {
    expect(installed.loaded.find((tool) => tool.name === "where")?.file).toBe(
      `${project.directory}/.toolbelt/tools/where.ts`,
    )
    expect(await call("where")).toMatchObject({ status: "completed", output: "project" })
    expect(await call("rootonly")).toMatchObject({ status: "completed", output: "root" })
    expect(await call("globalonly")).toMatchObject({ status: "completed", output: "global" })
  })

  it("follows symlinked tool files", async () => {
    expect(await call("linked")).toMatchObject({ status: "completed", output: "linked" })
  })

  it("overrides a built-in with a custom tool of the same name, visibly", async () => {
    const read = (await toolbelt.tools()).find((tool) => tool.name === "read")!
    expect(read.entry.source).toBe("custom:packages/app/.toolbelt/tools/read.ts")
    expect(read.description).toBe("A project-specific read.")
    expect(await call("read", { filePath: "x.txt" })).toMatchObject({
      status: "completed",
      output: "custom read of x.txt",
    })
    expect(internals(toolbelt).registry.resolve("list")?.source).toBe("builtin")
  })
})

describe("opencode's custom-tool format", () => {
  it("takes Zod args: JSON Schema with descriptions, validation before the tool runs", async () => {
    const greet = (await toolbelt.tools()).find((tool) => tool.name === "greet")!
    expect(greet.inputSchema).toMatchObject({
      type: "object",
      properties: {
        name: { type: "string", description: "who to greet" },
        times: { type: "integer", minimum: 1, description: "how many times" },
      },
      required: ["name"],
    })
    expect(await call("greet", { name: "Ada", times: 2 })).toMatchObject({
      status: "completed",
      title: "greet",
      output: "hello Ada (plain)\nhello Ada (plain)",
    })
    const invalid = await call("greet", { times: 0 })
    expect(invalid).toMatchObject({ status: "error", kind: "invalid" })
    expect(invalid.status === "error" && invalid.error).toMatch(/name/)
    expect(await call("greet_shout", { name: "ada" })).toMatchObject({ output: "HELLO ADA" })
  })

  it("takes legacy JSON-schema args as given, every one required, checking only presence", async () => {
    const legacy = (await toolbelt.tools()).find((tool) => tool.name === "legacy")!
    expect(legacy.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string", description: "a path" }, depth: { type: "integer", minimum: 0 } },
      required: ["path", "depth"],
    })
    const missing = await call("legacy", { path: "src" })
    expect(missing).toMatchObject({ status: "error", kind: "invalid" })
    expect(missing.status === "error" && missing.error).toMatch(/depth/)
    // Not validated beyond presence: the values reach the tool as they came.
    expect(await call("legacy", { path: 7, depth: "deep", extra: true })).toMatchObject({
      status: "completed",
      output: JSON.stringify({ path: 7, depth: "deep", extra: true }),
    })
  })

  it("treats args null or missing as no arguments", async () => {
    for (const name of ["ping", "ping_bare"]) {
      const tool = (await toolbelt.tools()).find((advertised) => advertised.name === name)!
      expect(tool.inputSchema).toMatchObject({ type: "object", properties: {} })
    }
    expect(await call("ping")).toMatchObject({ status: "completed", output: "pong" })
    expect(await call("ping_bare")).toMatchObject({ status: "completed", output: "bare" })
  })

  it("takes an object result with a title and metadata; the runtime, not the tool, says what was cut", async () => {
    expect(await call("stats", { text: "one two three" })).toMatchObject({
      status: "completed",
      title: "3 words",
      output: "words: 3",
      metadata: { words: 3, truncated: false },
    })
  })

  it("bounds a custom tool's output like any other tool's", async () => {
    const result = await call("flood")
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    expect(result.metadata.truncated).toBe(true)
    expect(result.metadata.outputPath).toEqual(expect.any(String))
    expect(result.output.split("\n").length).toBeLessThan(2100)
  })

  it("gives the context: identity, directory and worktree, metadata() and ask() as a Promise", async () => {
    parts.length = 0
    const result = await toolbelt.call({
      tool: "deploy",
      input: { env: "staging" },
      sessionID: "ses_custom",
      messageID: "msg_custom",
    })
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    expect(JSON.parse(result.output)).toEqual({
      env: "staging",
      sessionID: "ses_custom",
      messageID: "msg_custom",
      agent: "build",
      directory: project.directory,
      worktree: project.root,
      aborted: false,
    })
    expect(result.title).toBe("deploying staging")
    const running = parts.filter((part) => part.state.status === "running")
    expect(running.map((part) => part.state.status === "running" && part.state.metadata?.step)).toContain(
      "asking",
    )
  })

  it("lets a denied ask fail the call with a permission error", async () => {
    const result = await call("deploy", { env: "prod" })
    expect(result).toMatchObject({ status: "error", kind: "permission" })
  })
})

describe("files that fail to load", () => {
  const errorOf = (name: string) => installed.errors.find((error) => error.file.endsWith(`/${name}`))

  it("reports a syntax error with the file and the first line of the error", () => {
    const error = errorOf("broken.ts")
    expect(error?.file).toBe(`${project.directory}/.toolbelt/tools/broken.ts`)
    // The wording is the loader's (here the test runner's; Node's is checked in native.test.ts).
    expect(error?.error).toMatch(/^syntax error: .*\(line 3(:\d+)?\)$/)
  })

  it("reports a file that throws at import", () => {
    expect(errorOf("explode.js")?.error).toBe("threw while loading: Error: exploded at import (line 1:7)")
  })

  it("reports a bad export and still loads the file's good ones", async () => {
    expect(errorOf("badargs.ts")?.error).toMatch(/^export "default": badargs: args must be an object/)
    expect(await call("badargs_fine")).toMatchObject({ status: "completed", output: "fine" })
  })

  it("explains why TypeScript under node_modules does not load", () => {
    expect(errorOf("nm.ts")?.error).toMatch(/node_modules.*Node does not strip types/)
  })

  it("includes dotfiles, whose names must still be valid tool names", () => {
    expect(errorOf(".hidden.ts")?.error).toMatch(/^export "default": Invalid tool name "\.hidden"/)
  })

  it("reports a dangling symbolic link, but not an editor's lock file", () => {
    expect(errorOf("gone.ts")?.error).toMatch(/^broken symbolic link: ENOENT/)
  })

  it("reports nothing else, and the other tools work", async () => {
    expect(installed.errors.map((error) => error.file.split("/").pop()).sort()).toEqual([
      ".hidden.ts",
      "badargs.ts",
      "broken.ts",
      "explode.js",
      "gone.ts",
      "nm.ts",
    ])
    expect(await call("rootonly")).toMatchObject({ status: "completed" })
  })
})

describe("handles", () => {
  it("closing a file's handle removes its tools and reveals what it overrode", async () => {
    const scratch = await createToolbelt({
      directory: project.directory,
      dataDir: project.dataDir,
      store: "memory",
      sweep: false,
      customTools: false,
      env: project.env,
      config: {},
    })
    const own = await installCustomTools({
      directory: scratch.directory,
      worktree: scratch.worktree,
      registry: internals(scratch).registry,
      env: project.env,
    })
    expect(internals(scratch).registry.resolve("read")?.source).toMatch(/^custom:/)
    for (const handle of own.handles) handle.close()
    expect(internals(scratch).registry.resolve("read")?.source).toBe("builtin")
    expect(internals(scratch).registry.resolve("greet")).toBeUndefined()
    scratch.close()
  })
})
