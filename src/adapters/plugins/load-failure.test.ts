import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LoadError } from "./import-module.ts"
import { loadFailure } from "./load-failure.ts"

function nodeError(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  const error = new Error(message)
  error.name = name
  return Object.assign(error, extra)
}

// The errors as Node gives them (their shapes copied from Node 24's); test/custom/ checks the real ones.
describe("loadFailure", () => {
  it.each([
    [nodeError("SyntaxError", "Unexpected token '='"), "syntax error: Unexpected token '='"],
    [
      nodeError("SyntaxError", "Expression expected", {
        code: "ERR_INVALID_TYPESCRIPT_SYNTAX",
        stack: "/p/.toolbelt/tools/x.ts:2\nconst x: number = \n^^^\nSyntaxError: Expression expected",
      }),
      "syntax error: Expression expected (line 2:1)",
    ],
    [
      nodeError(
        "Error",
        "Transform failed with 1 error:\n\n\u001b[31m[PARSE_ERROR] \u001b[0mUnexpected token\n  [ x.ts:3:10 ]",
      ),
      "syntax error: Unexpected token (line 3:10)",
    ],
    [
      nodeError("SyntaxError", "TypeScript enum is not supported in strip-only mode", {
        code: "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
        stack: "/p/x.ts:1\nenum E { A }\n^^^^^^^^^^^^\n\nSyntaxError: ...",
      }),
      expect.stringMatching(
        /^TypeScript that Node cannot run: TypeScript enum is not supported in strip-only mode \(line 1:1\); Node runs TypeScript by removing the types only/,
      ),
    ],
    [
      nodeError(
        "SyntaxError",
        "The requested module '@opencode-ai/plugin' does not provide an export named 'tol'",
        {
          stack:
            "file:///p/x.ts:1\nimport { tol } from '@opencode-ai/plugin'\n         ^^^\nSyntaxError: ...",
        },
      ),
      'it imports { tol } from "@opencode-ai/plugin", which has no export named tol (it exports tool, Tool); fix the name, or import it from where it is exported (line 1:10)',
    ],
    [new Error("boom\nat the second line"), "threw while loading: Error: boom"],
    [new TypeError(""), "threw while loading: TypeError: (no message)"],
    ["a string was thrown", "threw while loading: Error: a string was thrown"],
    [
      nodeError("Error", "Cannot find package 'left-pad' imported from /nowhere/p/x.ts", {
        code: "ERR_MODULE_NOT_FOUND",
      }),
      'it imports "left-pad", which is not installed in /nowhere/p; run `npm install left-pad` there, or remove the import',
    ],
    [
      nodeError(
        "Error",
        "Cannot find module '@scope/pkg/sub'\nRequire stack:\n- /nowhere/.opencode/tool/x.ts",
        {
          code: "MODULE_NOT_FOUND",
        },
      ),
      'it imports "@scope/pkg/sub", which is not installed in /nowhere/.opencode; run `npm install @scope/pkg` there, or remove the import',
    ],
    [
      nodeError("Error", "Cannot find module '/nowhere/p/lib/helpers.ts' imported from /nowhere/p/x.ts", {
        code: "ERR_MODULE_NOT_FOUND",
      }),
      'it imports "./lib/helpers.ts", which does not exist (/nowhere/p/lib/helpers.ts); create it, or fix the path',
    ],
    [
      nodeError(
        "Error",
        `Package subpath './nothere' is not defined by "exports" in /t/node_modules/zod/package.json imported from /nowhere/x.ts`,
        { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" },
      ),
      'it imports "zod/nothere", which zod does not export (its package.json "exports" has no "./nothere"); import a path it exports',
    ],
    [
      nodeError(
        "Error",
        'Stripping types is currently unsupported for files under node_modules, for "/p/node_modules/a/b.ts"',
        { code: "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING" },
      ),
      "/p/node_modules/a/b.ts is TypeScript under node_modules, and Node does not strip types from files under node_modules; use its compiled JavaScript instead, or move the file out of node_modules",
    ],
    [new LoadError("said as is"), "said as is"],
  ])("%s → %s", (error, expected) => {
    expect(loadFailure(error)).toEqual(expected)
  })
})

describe("loadFailure with the file", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolbelt-failure-"))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("locates a syntax error the runtime did not, by parsing the file again", async () => {
    const file = join(dir, "broken.js")
    await writeFile(file, "export default {\n  a: = 1\n}\n")
    expect(loadFailure(nodeError("SyntaxError", "Unexpected token '='"), file)).toBe(
      "syntax error: Unexpected token '=' (line 2:6)",
    )
  })

  it("names the folder with a package.json as where to install a missing package", async () => {
    await writeFile(join(dir, "package.json"), "{}\n")
    const file = join(dir, ".opencode", "tool", "x.ts")
    const error = nodeError("Error", `Cannot find package 'lodash' imported from ${file}`, {
      code: "ERR_MODULE_NOT_FOUND",
    })
    expect(loadFailure(error, file)).toBe(
      `it imports "lodash", which is not installed in ${dir}; run \`npm install lodash\` there, or remove the import`,
    )
  })

  it("says which file the missing import is in when it is not the tool file", () => {
    const file = join(dir, "x.ts")
    const error = nodeError("Error", `Cannot find package 'lodash' imported from ${join(dir, "lib.ts")}`, {
      code: "ERR_MODULE_NOT_FOUND",
    })
    expect(loadFailure(error, file)).toMatch(
      `it imports "lodash" (in ${join(dir, "lib.ts")}), which is not installed`,
    )
  })

  it("gives the line in the file an error thrown while loading came from", () => {
    const file = join(dir, "throws.ts")
    const error = new Error("exploded")
    error.stack = `Error: exploded\n    at file://${file}:3:9\n    at ModuleJob.run (node:internal/modules/esm/module_job:561:25)`
    expect(loadFailure(error, file)).toBe("threw while loading: Error: exploded (line 3:9)")
  })
})
