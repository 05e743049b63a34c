import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  PY_PROJECT,
  TS_PROJECT,
  tagged,
  testPool,
  writeFiles,
} from "../../adapters/lsp/fixtures/lsp-project.ts"
import type { LanguageServerPool } from "../../adapters/lsp/language-server-pool.ts"
import { askOutside, completed, createHarness, errorOf, type Harness } from "../kit/fixtures/harness.ts"
import { LspTool } from "./lsp.ts"

let h: Harness
let pool: LanguageServerPool
let tag: string

beforeAll(async () => {
  h = await createHarness({ lsp: LspTool })
  writeFiles(h.directory, { ...TS_PROJECT, ...PY_PROJECT, "notes.xyz": "x\n", "a.fake": "x\n" })
  ;({ pool, tag } = testPool(h.directory))
})

afterAll(async () => {
  await pool.close()
  expect(tagged(tag)).toEqual([])
  await h.close()
})

beforeEach(() => {
  h.asks.length = 0
})

const lsp = (input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  h.call("lsp", input, { extra: { languageServers: pool, ...extra } })

const output = async (input: Record<string, unknown>) => completed(await lsp(input)).output

describe("typescript (typescript-language-server)", () => {
  it("goToDefinition: the definition with its source line", async () => {
    const result = completed(
      await lsp({ operation: "goToDefinition", filePath: "src/main.ts", line: 4, character: 10 }),
    )
    expect(result.output).toBe("src/math.ts:1:17: export function add(a: number, b: number): number {")
    expect(result.title).toBe("goToDefinition src/main.ts:4:10")
    expect(result.metadata).toMatchObject({
      operation: "goToDefinition",
      line: 4,
      character: 10,
      servers: ["typescript"],
      found: true,
    })
  })

  it("findReferences: every use, sorted, the declaration included", async () => {
    expect(
      await output({ operation: "findReferences", filePath: h.path("src/math.ts"), line: 1, character: 17 }),
    ).toBe(
      [
        'src/main.ts:1:10: import { add, Square } from "./math.js"',
        "src/main.ts:4:10: return add(1, 2) + add(3, 4)",
        "src/main.ts:4:22: return add(1, 2) + add(3, 4)",
        "src/math.ts:1:17: export function add(a: number, b: number): number {",
      ].join("\n"),
    )
  })

  it("hover: the signature as text", async () => {
    const text = await output({ operation: "hover", filePath: "src/main.ts", line: 4, character: 10 })
    expect(text).toContain("add(a: number, b: number): number")
    expect(text).toContain("```typescript")
    expect(text).not.toContain('"contents"')
  })

  it("documentSymbol: an outline indented by nesting", async () => {
    const result = completed(await lsp({ operation: "documentSymbol", filePath: "src/math.ts" }))
    expect(result.output).toBe(
      [
        "function add (lines 1-3)",
        "interface Shape (lines 5-7)",
        "  method area (line 6)",
        "class Square (lines 9-14)",
        "  constructor constructor (line 10)",
        "  property side (line 10)",
        "  method area (lines 11-13)",
      ].join("\n"),
    )
    expect(result.title).toBe("documentSymbol src/math.ts")
  })

  it("workspaceSymbol: matching symbols across the project, located", async () => {
    const result = completed(
      await lsp({ operation: "workspaceSymbol", filePath: "src/main.ts", query: "Square" }),
    )
    expect(result.output).toContain("class Square — src/math.ts:9:1: export class Square implements Shape {")
    expect(result.title).toBe('workspaceSymbol "Square"')
  })

  it("goToImplementation: the class method implementing an interface method", async () => {
    expect(
      await output({ operation: "goToImplementation", filePath: "src/math.ts", line: 6, character: 3 }),
    ).toBe("src/math.ts:11:3: area(): number {")
  })

  it("prepareCallHierarchy: the function at the position", async () => {
    expect(
      await output({ operation: "prepareCallHierarchy", filePath: "src/main.ts", line: 3, character: 17 }),
    ).toBe("function total — src/main.ts:3:17")
  })

  it("incomingCalls: a tree of callers, each with its call sites", async () => {
    expect(
      await output({ operation: "incomingCalls", filePath: "src/math.ts", line: 1, character: 17 }),
    ).toBe(
      [
        "function add — src/math.ts:1:17",
        "  ← function total — src/main.ts:3:17",
        "      src/main.ts:4:10: return add(1, 2) + add(3, 4)",
        "      src/main.ts:4:22: return add(1, 2) + add(3, 4)",
      ].join("\n"),
    )
  })

  it("outgoingCalls: a tree of the functions called, with the calls", async () => {
    const text = await output({ operation: "outgoingCalls", filePath: "src/main.ts", line: 3, character: 17 })
    expect(text.split("\n")[0]).toBe("function total — src/main.ts:3:17")
    expect(text).toContain(
      "  → function add — src/math.ts:1:17\n      src/main.ts:4:10: return add(1, 2) + add(3, 4)\n      src/main.ts:4:22: return add(1, 2) + add(3, 4)",
    )
  })

  it("says so when nothing is found", async () => {
    const result = completed(
      await lsp({ operation: "goToImplementation", filePath: "src/main.ts", line: 2, character: 1 }),
    )
    expect(result.output).toBe("No results found for goToImplementation")
    expect(result.metadata.found).toBe(false)
  })
})

describe("python (pyright)", () => {
  it("goToDefinition and hover", async () => {
    expect(await output({ operation: "goToDefinition", filePath: "app.py", line: 5, character: 11 })).toBe(
      "app.py:1:5: def greet(name: str) -> str:",
    )
    expect(await output({ operation: "hover", filePath: "app.py", line: 5, character: 11 })).toContain(
      "(function) def greet(name: str) -> str",
    )
  })
})

describe("the call", () => {
  it("asks lsp with the operation and where, as opencode", async () => {
    completed(await lsp({ operation: "hover", filePath: "src/main.ts", line: 4, character: 10 }))
    expect(h.asks).toEqual([
      expect.objectContaining({
        permission: "lsp",
        patterns: ["*"],
        always: ["*"],
        metadata: { operation: "hover", filePath: h.path("src/main.ts"), line: 4, character: 10 },
      }),
    ])
  })

  it("asks external_directory for a file outside the project", async () => {
    writeFileSync(join(h.outside, "o.ts"), "export const o = 1\n")
    const result = await h.call(
      "lsp",
      { operation: "documentSymbol", filePath: join(h.outside, "o.ts") },
      { extra: { languageServers: pool }, permission: askOutside() },
    )
    expect(errorOf(result)).toMatch(/reject/i)
    expect(h.asks.map((ask) => ask.permission)).toEqual(["external_directory"])
  })

  it("a file type no server handles: says so and how to configure one", async () => {
    const error = errorOf(await lsp({ operation: "hover", filePath: "notes.xyz", line: 1, character: 1 }))
    expect(error).toContain("No LSP server available for this file type")
    expect(error).toContain('"lsp"')
  })

  it("a missing file, a position past the end, a position left out", async () => {
    expect(errorOf(await lsp({ operation: "documentSymbol", filePath: "src/nope.ts" }))).toBe(
      `File not found: ${h.path("src/nope.ts")}`,
    )
    expect(
      errorOf(await lsp({ operation: "hover", filePath: "src/main.ts", line: 99, character: 1 })),
    ).toContain("Line 99 is past the end of")
    expect(errorOf(await lsp({ operation: "hover", filePath: "src/main.ts" }))).toContain(
      "hover needs line and character",
    )
  })

  it("a server that crashes twice: the error names the crash", async () => {
    writeFileSync(h.path("mode"), "crash")
    const error = errorOf(await lsp({ operation: "hover", filePath: "a.fake", line: 1, character: 1 }))
    expect(error).toContain("The language server could not answer hover.")
    expect(error).toContain("fake: The fake language server exited unexpectedly (exit code 3)")
  })

  it("without language servers (no toolbelt), says where they run", async () => {
    const error = errorOf(await h.call("lsp", { operation: "documentSymbol", filePath: "src/main.ts" }))
    expect(error).toContain("language servers run only inside a toolbelt")
  })
})
