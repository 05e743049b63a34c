import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { importModule, LoadError } from "./import-module.ts"

describe("importModule", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolbelt-import-"))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("resolves opencode's helper package and toolbelt's to toolbelt's helper", async () => {
    const file = join(dir, "both.ts")
    await writeFile(
      file,
      `import { tool as ours } from "agent-toolbelt/plugin"\nimport { tool as before } from "toolbelt/plugin"\nimport { tool as theirs } from "@opencode-ai/plugin"\nexport const same = ours === theirs && ours === before\nexport const zod = typeof ours.schema.object\n`,
    )
    expect(await importModule(file)).toMatchObject({ same: true, zod: "function" })
  })

  it("resolves zod, the tool API and opencode's Tool to toolbelt's own, with no node_modules near the file", async () => {
    const file = join(dir, "own.ts")
    await writeFile(
      file,
      `import z from "zod"\nimport { z as named } from "zod/v4"\nimport * as Api from "agent-toolbelt/tool"\nimport { Tool, tool } from "@opencode-ai/plugin"\nexport const zod = z.object === named.object && tool.schema.object === z.object\nexport const api = typeof Api.define === "function" && typeof Tool.define === "function" && Tool.make === Api.make\n`,
    )
    expect(await importModule(file)).toMatchObject({ zod: true, api: true })
  })

  it("refuses TypeScript under node_modules before Node does", async () => {
    const file = join(dir, "node_modules", "pkg", "x.ts")
    await expect(importModule(file)).rejects.toThrow(LoadError)
    await expect(importModule(file)).rejects.toThrow(/TypeScript under node_modules/)
  })
})
