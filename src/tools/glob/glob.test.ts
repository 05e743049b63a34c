import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { BASE_TIME, type Entry, makeTree } from "../../platform/search/fixtures/tree.ts"
import { backendNames, type SearchHarness, searchHarness } from "../kit/fixtures/harness.ts"
import { GlobTool } from "./glob.ts"

let project: string
let outside: string

beforeAll(() => {
  const many: Record<string, Entry> = {}
  for (let k = 0; k < 130; k++) many[`many/f${String(k).padStart(3, "0")}.txt`] = `file ${k}\n`
  project = makeTree({
    ".git/HEAD": "ref\n",
    ".gitignore": "node_modules/\n*.log\n!keep.log\n",
    "node_modules/pkg/index.ts": "x",
    "src/old.ts": { content: "old\n", mtime: BASE_TIME - 1000 },
    "src/new.ts": { content: "new\n", mtime: BASE_TIME + 5000 },
    "src/mid.ts": { content: "mid\n", mtime: BASE_TIME + 2000 },
    "src/.env.ts": "hidden\n",
    "src/deep/er.ts": "deep\n",
    "debug.log": "ignored\n",
    "keep.log": "kept\n",
    "exactly/": "",
    ...many,
    ...Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`exactly/e${k}.md`, "x"])),
  })
  outside = makeTree({ "a.ts": "outside\n" })
})

afterAll(() => {
  rmSync(project, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

describe("glob's backend when none is forced", () => {
  it("lists with the in-process walker, rg installed or not", async () => {
    const tool = searchHarness(GlobTool, () => project, "ripgrep")
    try {
      const result = await tool.run({ pattern: "src/**/*.ts" }, { extra: { searchBackend: undefined } })
      expect(result).toMatchObject({ status: "completed", metadata: { total: 5, backend: "fallback" } })
    } finally {
      tool.close()
    }
  })
})

describe.each(backendNames())("glob on %s", (backend) => {
  let tool: SearchHarness
  beforeAll(() => {
    tool = searchHarness(GlobTool, () => project, backend)
  })
  afterEach(() => {
    tool.asks.length = 0
    tool.reply = "once"
  })
  afterAll(() => tool.close())

  it("lists matching files as absolute paths, newest first, hidden files included, ignored files left out", async () => {
    const result = await tool.run({ pattern: "src/**/*.ts" })
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    const lines = result.output.split("\n")
    expect(lines[0]).toBe(join(project, "src/new.ts"))
    expect(lines[1]).toBe(join(project, "src/mid.ts"))
    expect(lines.at(-1)).toBe(join(project, "src/old.ts"))
    expect([...lines].sort()).toEqual(
      ["src/.env.ts", "src/deep/er.ts", "src/mid.ts", "src/new.ts", "src/old.ts"]
        .map((path) => join(project, path))
        .sort(),
    )
    expect(result.metadata).toMatchObject({ count: 5, total: 5, truncated: false, timedOut: false, backend })
    expect(result.title).toBe(".")
  })

  it("matches file names at any depth for a glob without a slash, and never lists ignored files", async () => {
    const result = await tool.run({ pattern: "*.log" })
    expect(result.status === "completed" && result.output).toBe(join(project, "keep.log"))
    const modules = await tool.run({ pattern: "**/index.ts" })
    expect(modules.status === "completed" && modules.output).toBe("No files found")
  })

  it("keeps the 100 newest, says how many matched and how to narrow, and marks the result truncated", async () => {
    const result = await tool.run({ pattern: "many/*.txt" })
    if (result.status !== "completed") throw new Error(JSON.stringify(result))
    const lines = result.output.split("\n")
    expect(lines.slice(0, 100).every((line) => line.startsWith(join(project, "many/")))).toBe(true)
    expect(lines[0]).toBe(join(project, "many/f129.txt"))
    expect(lines[99]).toBe(join(project, "many/f030.txt"))
    expect(result.output).toContain("(Showing the 100 most recently modified of 130 matching files.")
    expect(result.output).toContain("more specific pattern or path")
    expect(result.metadata).toMatchObject({ count: 100, total: 130, truncated: true })
  })

  it("is not truncated at exactly 100", async () => {
    const result = await tool.run({ pattern: "*.md", path: "exactly" })
    expect(result.status === "completed" && result.metadata).toMatchObject({
      count: 100,
      total: 100,
      truncated: false,
    })
    expect(result.status === "completed" && result.output).not.toContain("Showing")
  })

  it("searches a path relative to the project or absolute, and names it in the title", async () => {
    const relative = await tool.run({ pattern: "*.ts", path: "src/deep" })
    expect(relative.status === "completed" && relative.output).toBe(join(project, "src/deep/er.ts"))
    expect(relative.status === "completed" && relative.title).toBe("src/deep")
    const absolute = await tool.run({ pattern: "*.ts", path: join(project, "src/deep") })
    expect(absolute.status === "completed" && absolute.output).toBe(join(project, "src/deep/er.ts"))
  })

  it("accepts an absolute pattern inside the path, and refuses one outside it", async () => {
    const inside = await tool.run({ pattern: join(project, "src/deep/*.ts") })
    expect(inside.status === "completed" && inside.output).toBe(join(project, "src/deep/er.ts"))
    const elsewhere = await tool.run({ pattern: "/somewhere/else/*.ts" })
    expect(elsewhere.status === "error" && elsewhere.error).toContain("pattern must be relative to path")
  })

  it("refuses a file as path, and a missing path, clearly", async () => {
    const file = await tool.run({ pattern: "*", path: "src/new.ts" })
    expect(file.status === "error" && file.error).toBe(
      `glob path must be a directory: ${join(project, "src/new.ts")} is a file. Pass its directory as path, or use read to open the file.`,
    )
    const missing = await tool.run({ pattern: "*", path: "nope" })
    expect(missing.status === "error" && missing.error).toBe(`Directory not found: ${join(project, "nope")}`)
    const empty = await tool.run({ pattern: " " })
    expect(empty.status === "error" && empty.error).toContain("pattern is required")
  })

  it("asks glob permission for the pattern, and external_directory for a path outside the project", async () => {
    await tool.run({ pattern: "*.ts", path: "src" })
    expect(
      tool.asks.map((ask) => ({ permission: ask.permission, patterns: ask.patterns, always: ask.always })),
    ).toEqual([{ permission: "glob", patterns: ["*.ts"], always: ["*"] }])
    expect(tool.asks[0]!.metadata).toEqual({ pattern: "*.ts", path: "src" })
    tool.asks.length = 0
    const result = await tool.run({ pattern: "*.ts", path: outside })
    expect(result.status === "completed" && result.output).toBe(join(outside, "a.ts"))
    expect(tool.asks.map((ask) => [ask.permission, ask.patterns])).toEqual([
      ["glob", ["*.ts"]],
      ["external_directory", [`${outside}/*`]],
    ])
    tool.reply = "reject"
    const rejected = await tool.run({ pattern: "*.ts", path: outside })
    expect(rejected.status).toBe("error")
    expect(rejected.status === "error" && rejected.kind).toBe("permission")
  })

  it("says so when the time limit cut the search", async () => {
    const result = await tool.run({ pattern: "**/*" }, { extra: { searchTimeoutMs: 0 } })
    if (result.status !== "completed") throw new Error(JSON.stringify(result))
    expect(result.metadata.timedOut).toBe(true)
    expect(result.output).toContain("time limit of 0 s")
  })

  it("stops at once on abort: the call is interrupted, never a success", async () => {
    const controller = new AbortController()
    controller.abort()
    const result = await tool.run({ pattern: "**/*" }, { abort: controller.signal })
    expect(result.status === "error" && result.kind).toBe("interrupted")
    const later = new AbortController()
    const running = tool.run({ pattern: "**/*" }, { abort: later.signal })
    later.abort()
    const settled = await running
    expect(settled.status === "error" && settled.metadata).toMatchObject({ interrupted: true })
  })
})
