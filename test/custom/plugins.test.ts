import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installPlugins } from "../../src/adapters/plugins/load.ts"
import { internals } from "../../src/compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../src/compose/toolbelt.ts"
import { type TempProject, tempProject } from "./project.ts"

// An opencode-shaped plugin: every exported function is a plugin (the same function exported twice is
// one plugin), hooks by name, a `tool` record in opencode's format, imports opencode's helper package.
const OPENCODE_PLUGIN = `
import type { Plugin } from "@opencode-ai/plugin"
import { tool } from "@opencode-ai/plugin"

const counter = globalThis as { __customPluginInits?: number }

export const Guard: Plugin = async ({ directory, worktree }) => {
  counter.__customPluginInits = (counter.__customPluginInits ?? 0) + 1
  return {
    "tool.execute.before": async (input, output) => {
      if (input.tool === "shout") output.args = { ...output.args, text: output.args.text + "!" }
    },
    "tool.execute.after": async (input, output) => {
      if (input.tool === "shout") output.title = "shouted"
    },
    tool: {
      shout: tool({
        description: "Shouts.",
        args: { text: tool.schema.string().describe("what to shout") },
        async execute({ text }, ctx) {
          return text.toUpperCase() + (ctx.directory === directory ? " (in the project)" : " (elsewhere)")
        },
      }),
      roots: tool({
        description: "Says where it runs.",
        args: null,
        execute: async (_args, ctx) => ({ output: ctx.worktree, metadata: { worktree } }),
      }),
    },
  }
}
export default Guard

export const Definitions: Plugin = async () => ({
  "tool.definition": async (input, output) => {
    if (input.toolID === "shout") output.description = "Shouts, loudly."
  },
  // opencode-only hooks are not toolbelt's: ignored.
  event: async () => {},
})
`

// A module without functions: the object (default export) is the plugin.
const OBJECT_PLUGIN = `
export default {
  tool: {
    wave: { description: "Waves.", args: { to: { type: "string" } }, execute: async ({ to }) => "waves at " + to },
  },
}
`

let project: TempProject
let toolbelt: Toolbelt
const spec: Record<string, string> = {}
let inits: number | undefined

beforeAll(async () => {
  project = await tempProject()
  spec.opencode = await project.write("plugins/opencode-plugin.ts", OPENCODE_PLUGIN)
  spec.object = await project.write("plugins/object-plugin.js", OBJECT_PLUGIN)
  spec.throws = await project.write("plugins/throws.ts", `throw new Error("plugin import failed")\n`)
  spec.syntax = await project.write("plugins/syntax.js", `export default function (\n`)
  spec.number = await project.write("plugins/number.ts", `export default async () => 42\n`)
  spec.nothing = await project.write("plugins/nothing.js", `export const version = "1"\n`)
  spec.badTool = await project.write(
    "plugins/bad-tool.ts",
    `export default async () => ({
  "tool.execute.after": async (_input: unknown, output: { title: string }) => { output.title = "never" },
  tool: {
    good: { description: "fine", args: {}, execute: () => "good" },
    bad: { description: "bad", args: { n: 5 }, execute: () => "bad" },
  },
})\n`,
  )
  toolbelt = await createToolbelt({
    directory: project.directory,
    dataDir: project.dataDir,
    store: "memory",
    sweep: false,
    env: project.env,
    config: {
      plugin: [
        spec.opencode!,
        spec.throws!,
        spec.object!,
        spec.syntax!,
        spec.number!,
        spec.badTool!,
        spec.nothing!,
        spec.opencode!,
        "opencode-not-installed@1.2.3",
      ],
    },
  })
  inits = (globalThis as { __customPluginInits?: number }).__customPluginInits
})

afterAll(async () => {
  // Awaited: its token counts may still be written into the data dir the project removes.
  await toolbelt?.close()
  await project?.remove()
})

describe("opencode-shaped plugins", () => {
  it("loads every exported function once, even when listed twice", () => {
    expect(inits).toBe(1)
    expect(internals(toolbelt).registry.resolve("shout")?.source).toBe(`plugin:${spec.opencode}`)
  })

  it("registers its opencode-format tools and runs its hooks around them", async () => {
    const shout = (await toolbelt.tools()).find((tool) => tool.name === "shout")!
    expect(shout.description).toBe("Shouts, loudly.")
    expect(shout.inputSchema).toMatchObject({
      properties: { text: { type: "string", description: "what to shout" } },
      required: ["text"],
    })
    expect(await toolbelt.call({ tool: "shout", input: { text: "hi" } })).toMatchObject({
      status: "completed",
      title: "shouted",
      output: "HI! (in the project)",
    })
  })

  it("accepts a module that is an object with a tool record", async () => {
    expect(await toolbelt.call({ tool: "wave", input: { to: "you" } })).toMatchObject({
      status: "completed",
      output: "waves at you",
    })
  })

  it("tells plugins and their tools the worktree", async () => {
    const scratch = await createToolbelt({
      directory: project.directory,
      dataDir: project.dataDir,
      store: "memory",
      sweep: false,
      env: project.env,
      config: {},
    })
    const { errors } = await installPlugins([spec.opencode!], {
      directory: scratch.directory,
      worktree: scratch.worktree,
      registry: internals(scratch).registry,
      hooks: internals(scratch).hooks,
    })
    expect(errors).toEqual([])
    expect(await scratch.call({ tool: "roots", input: {} })).toMatchObject({
      status: "completed",
      output: project.root,
      metadata: { worktree: project.root },
    })
    scratch.close()
  })
})

describe("plugins that fail to load", () => {
  const errorOf = (file: string) => toolbelt.pluginErrors.find((error) => error.spec === file)?.error

  it("reports each failure with the plugin and why, and loads the others", () => {
    expect(errorOf(spec.throws!)).toBe("threw while loading: Error: plugin import failed (line 1:7)")
    // The wording is the runtime's (here the test runner's loader; Node's is checked in native.test.ts).
    expect(errorOf(spec.syntax!)).toMatch(/syntax/i)
    expect(errorOf(spec.number!)).toMatch(/returned number; a plugin returns an object of hooks/)
    expect(errorOf(spec.badTool!)).toMatch(/bad: args\.n must be a Zod schema/)
    expect(errorOf("opencode-not-installed@1.2.3")).toMatch(
      /^Cannot find the plugin: .*opencode-not-installed.*\(install it: npm install opencode-not-installed\)$/,
    )
    expect(errorOf(spec.nothing!)).toMatch(
      /must export a function, or an object with hooks or a "tool" record/,
    )
    expect(toolbelt.pluginErrors).toHaveLength(6)
  })

  it("registers nothing from a plugin that failed", async () => {
    expect(internals(toolbelt).registry.resolve("good")).toBeUndefined()
    expect(internals(toolbelt).hooks.sources("tool.execute.after")).toEqual([`plugin:${spec.opencode}`])
  })
})
