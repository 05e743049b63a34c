// The four tools that change files, through settlement, with real language servers in their services:
// what a server reports on the changed files is appended to their output, and nothing else changes.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  FAKE_CONFIG,
  PY_PROJECT,
  TS_PROJECT,
  tagged,
  testPool,
  writeFiles,
} from "../../../adapters/lsp/fixtures/lsp-project.ts"
import type { LanguageServerPool } from "../../../adapters/lsp/language-server-pool.ts"
import { ApplyPatchTool } from "../../apply_patch/apply_patch.ts"
import { EditTool } from "../../edit/edit.ts"
import { MultiEditTool } from "../../multiedit/multiedit.ts"
import { WriteTool } from "../../write/write.ts"
import { completed, createHarness, type Harness } from "../fixtures/harness.ts"

let h: Harness
let pool: LanguageServerPool
let tag: string

const TYPE_ERROR = "Type 'number' is not assignable to type 'string'."

beforeAll(async () => {
  h = await createHarness({
    edit: EditTool,
    write: WriteTool,
    multiedit: MultiEditTool,
    apply_patch: ApplyPatchTool,
  })
  writeFiles(h.directory, { ...TS_PROJECT, ...PY_PROJECT })
  ;({ pool, tag } = testPool(h.directory))
})

afterAll(async () => {
  await pool.close()
  expect(tagged(tag)).toEqual([])
  await h.close()
})

const call = async (
  tool: string,
  input: Record<string, unknown>,
  languageServers: LanguageServerPool | "none" = pool,
) =>
  completed(
    await h.call(tool, input, {
      extra: { requireRead: false, ...(languageServers === "none" ? {} : { languageServers }) },
    }),
  )

const block = (file: string, ...errors: string[]) =>
  `<diagnostics file="${file}">\n${errors.join("\n")}\n</diagnostics>`

describe("edit", () => {
  it("an edit that introduces a type error gets it appended; the edit that fixes it gets none", async () => {
    const main = h.path("src/main.ts")
    const broken = await call("edit", {
      filePath: main,
      oldString: "export const area = new Square(2).area()",
      newString: "export const area: string = new Square(2).area()",
    })
    expect(broken.output).toBe(
      `Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n${block(main, `ERROR [7:14] ${TYPE_ERROR}`)}`,
    )
    expect(broken.metadata.diagnostics).toEqual({
      [main]: [expect.objectContaining({ message: TYPE_ERROR, severity: 1 })],
    })

    const fixed = await call("edit", { filePath: main, oldString: "area: string", newString: "area: number" })
    expect(fixed.output).toBe("Edit applied successfully.")
    expect(fixed.metadata.diagnostics).toEqual({ [main]: [] })
  })

  it("a change that breaks another file reports that file too", async () => {
    const math = h.path("src/math.ts")
    const result = await call("edit", {
      filePath: math,
      oldString: "export function add(a: number, b: number): number {",
      newString: "export function add(a: number, b: number, c: number): number {",
    })
    expect(result.output).toContain("Edit applied successfully.\n\nLSP errors detected in other files:\n")
    expect(result.output).toContain(
      `<diagnostics file="${h.path("src/main.ts")}">\nERROR [4:10] Expected 3 arguments, but got 2.`,
    )
    await call("edit", { filePath: math, oldString: ", c: number", newString: "" })
  })

  it("a file type no server handles: the output and metadata are the edit's alone", async () => {
    writeFileSync(h.path("notes.txt"), "alpha\n")
    const result = await call("edit", {
      filePath: h.path("notes.txt"),
      oldString: "alpha",
      newString: "beta",
    })
    expect(result.output).toBe("Edit applied successfully.")
    expect(result.metadata).not.toHaveProperty("diagnostics")
  })

  it("without language servers (no toolbelt), nothing is added", async () => {
    const main = h.path("src/main.ts")
    const result = await call(
      "edit",
      { filePath: main, oldString: "area: number", newString: "area: string" },
      "none",
    )
    expect(result.output).toBe("Edit applied successfully.")
    expect(result.metadata).not.toHaveProperty("diagnostics")
    await call("edit", { filePath: main, oldString: "area: string", newString: "area: number" })
  })
})

describe("write, multiedit, apply_patch", () => {
  it("write: a Python type error from pyright", async () => {
    const app = h.path("app.py")
    const result = await call("write", {
      filePath: app,
      content: `${PY_PROJECT["app.py"]}count: int = greet('x')\n`,
    })
    expect(result.output).toMatch(
      /^Wrote file successfully\.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=".*app\.py">\nERROR \[6:14\] Type "str" is not assignable to declared type "int"/,
    )
    const fixed = await call("write", { filePath: app, content: PY_PROJECT["app.py"]! })
    expect(fixed.output).toBe("Wrote file successfully.")
  })

  it("multiedit: the errors after all its edits", async () => {
    const file = h.path("src/multi.ts")
    writeFileSync(file, "export const a = 1\nexport const b = 2\n")
    const result = await call("multiedit", {
      filePath: file,
      edits: [
        { oldString: "export const a = 1", newString: "export const a: string = 1" },
        { oldString: "export const b = 2", newString: "export const b: boolean = 2" },
      ],
    })
    expect(result.output).toBe(
      `Applied 2 edits successfully.\n\nLSP errors detected in this file, please fix:\n${block(
        file,
        `ERROR [1:14] ${TYPE_ERROR}`,
        "ERROR [2:14] Type 'number' is not assignable to type 'boolean'.",
      )}`,
    )
    expect((await call("write", { filePath: file, content: "export const a = 1\n" })).output).toBe(
      "Wrote file successfully.",
    )
  })

  it("apply_patch: each changed file with errors, by its path", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: src/added.ts",
      "+export const added: string = 42",
      "*** Add File: src/clean.ts",
      "+export const clean = 1",
      "*** End Patch",
    ].join("\n")
    const result = await call("apply_patch", { patchText: patch })
    expect(result.output).toBe(
      `Success. Updated the following files:\nA src/added.ts\nA src/clean.ts\n\nLSP errors detected in src/added.ts, please fix:\n${block(
        h.path("src/added.ts"),
        `ERROR [1:14] ${TYPE_ERROR}`,
      )}`,
    )
    expect(Object.keys(result.metadata.diagnostics as object).sort()).toEqual([
      h.path("src/added.ts"),
      h.path("src/clean.ts"),
    ])
  })

  it("a server that never answers does not fail the edit, nor hold it past the bound", async () => {
    const { pool: fakePool } = testPool(h.directory, {
      config: { fake: FAKE_CONFIG },
      diagnosticsWaitMs: 300,
      timeouts: { startMs: 1000 },
    })
    writeFileSync(join(h.directory, "mode"), "silent")
    writeFileSync(h.path("a.fake"), "x\n")
    try {
      const result = await call(
        "write",
        { filePath: h.path("a.fake"), content: "ERROR: never reported\n" },
        fakePool,
      )
      expect(result.output).toBe("Wrote file successfully.")
      expect(result.metadata.diagnostics).toEqual({})
    } finally {
      await fakePool.close()
    }
  })
})
