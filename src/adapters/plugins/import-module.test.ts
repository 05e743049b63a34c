import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { importModule, LoadError, loadFailure } from "./import-module.ts"

function nodeError(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  const error = new Error(message)
  error.name = name
  return Object.assign(error, extra)
}

describe("loadFailure", () => {
  it.each([
    [nodeError("SyntaxError", "Unexpected token '='"), "syntax error: Unexpected token '='"],
    [
      Object.assign(
        nodeError("SyntaxError", "Expression expected", { code: "ERR_INVALID_TYPESCRIPT_SYNTAX" }),
        {
          stack: "/p/.toolbelt/tools/x.ts:2\nconst x: number = \n^^^\nSyntaxError: Expression expected",
        },
      ),
      "syntax error: Expression expected (line 2)",
    ],
    [
      nodeError(
        "Error",
        "Transform failed with 1 error:\n\n\u001b[31m[PARSE_ERROR] \u001b[0mUnexpected token\n  [ x.ts:3:10 ]",
      ),
      "syntax error: Unexpected token (line 3)",
    ],
    [new Error("boom\nat the second line"), "threw while loading: Error: boom"],
    [new TypeError(""), "threw while loading: TypeError: (no message)"],
    ["a string was thrown", "threw while loading: Error: a string was thrown"],
    [
      nodeError("Error", "Cannot find package 'left-pad' imported from /p/x.ts", {
        code: "ERR_MODULE_NOT_FOUND",
      }),
      "cannot resolve an import: Cannot find package 'left-pad' imported from /p/x.ts",
    ],
    [
      nodeError(
        "Error",
        'Stripping types is currently unsupported for files under node_modules, for "/p/node_modules/a/b.ts"',
        {
          code: "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING",
        },
      ),
      "/p/node_modules/a/b.ts is TypeScript under node_modules, and Node does not strip types from files under node_modules; use its compiled JavaScript instead, or move the file out of node_modules",
    ],
    [new LoadError("said as is"), "said as is"],
  ])("%s → %s", (error, expected) => {
    expect(loadFailure(error)).toBe(expected)
  })
})

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

  it("refuses TypeScript under node_modules before Node does", async () => {
    const file = join(dir, "node_modules", "pkg", "x.ts")
    await expect(importModule(file)).rejects.toThrow(LoadError)
    await expect(importModule(file)).rejects.toThrow(/TypeScript under node_modules/)
  })
})
