import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { builtins } from "../../tools/index.ts"
import { fromDef } from "./define.ts"
import * as Tool from "./index.ts"
import { inputJsonSchema, internals } from "./internal.ts"
import { builtinSchema, schemaManifest, toInputJsonSchema, useManifest } from "./schema-source.ts"

afterEach(() => useManifest(undefined))

/** A v1 tool over a keyed schema (a built-in's, or made by `Tool.schema`) that counts its builds. */
function counted(key: string, make: typeof Tool.schema = builtinSchema) {
  let builds = 0
  const parameters = make(key, () => {
    builds++
    return z.object({ path: z.string().describe("where") })
  })
  const tool = fromDef({
    description: "d",
    parameters,
    execute: async (args) => ({ title: "", output: (args as { path: string }).path, metadata: {} }),
  })
  return { tool, builds: () => builds, parameters }
}

describe("Tool.schema", () => {
  it("builds its schema once, when first asked", () => {
    const { parameters, builds } = counted("test.once")
    expect(builds()).toBe(0)
    expect(parameters.schema()).toBe(parameters.schema())
    expect(builds()).toBe(1)
  })

  it("refuses a key another schema of the process has", () => {
    Tool.schema("test.twice", () => z.object({}))
    expect(() => Tool.schema("test.twice", () => z.object({}))).toThrow(/"test.twice" exists already/)
  })

  it("lists a tool from the build's manifest without building its schema; a call builds it", async () => {
    const { tool, builds } = counted("test.listed")
    const fromBuild = {
      type: "object",
      properties: { path: { type: "string", description: "from the build" } },
    }
    useManifest({ "test.listed": fromBuild })
    expect(inputJsonSchema(tool)).toEqual(fromBuild)
    expect(builds()).toBe(0)
    // Validating a call needs the schema itself.
    expect(internals(tool).input.safeParse({ path: "a" }).success).toBe(true)
    expect(internals(tool).input.safeParse({ path: 1 }).success).toBe(false)
    expect(builds()).toBe(1)
  })

  it("never lists another tool from the manifest, whatever its key", () => {
    // A plugin's schema, keyed as a built-in one of its own copy of the package might be.
    const { tool, builds } = counted("test.plugin", Tool.schema)
    useManifest({ "test.plugin": { type: "object", properties: { other: { type: "number" } } } })
    expect(inputJsonSchema(tool)).toEqual(toInputJsonSchema(z.object({ path: z.string().describe("where") })))
    expect(builds()).toBe(1)
    expect(Object.keys(schemaManifest())).not.toContain("test.plugin")
  })

  it("computes the JSON Schema from the schema where the build has none (the sources)", () => {
    useManifest(null)
    const { tool, builds } = counted("test.unlisted")
    expect(inputJsonSchema(tool)).toEqual(toInputJsonSchema(z.object({ path: z.string().describe("where") })))
    expect(builds()).toBe(1)
  })

  it("puts every built-in tool's schema in the manifest, as the schema itself gives it", async () => {
    const manifest = schemaManifest()
    for (const [name, info] of Object.entries(builtins())) {
      if (!Tool.isInfo(info)) continue
      const def = await info.init({ agent: { name: "build" } })
      const source = def.parameters as Tool.SchemaSource
      expect(source.key, name).toBeDefined()
      expect(manifest[source.key]).toEqual(toInputJsonSchema(source.schema()))
    }
    // The background variant of task, offered when turned on, is in it too.
    expect(Object.keys(manifest)).toContain("task.background")
  })
})
