import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { BASE_TIME, type Entry, makeTree } from "../../platform/search/fixtures/tree.ts"
import { backendNames, type SearchHarness, searchHarness } from "../kit/fixtures/harness.ts"
import { GrepTool } from "./grep.ts"

let project: string
let outside: string

beforeAll(() => {
  const many: Record<string, Entry> = {}
  // 150 matching lines in 3 files, f2 newest.
  for (let f = 0; f < 3; f++) {
    many[`many/f${f}.txt`] = {
      content: Array.from({ length: 50 }, (_, k) => `hit ${f}-${k}`).join("\n"),
      mtime: BASE_TIME + 100 + f,
    }
  }
  project = makeTree({
    ".git/HEAD": "ref\n",
    ".gitignore": "dist/\n",
    "dist/bundle.js": "function main() {}\n",
    "src/a.ts": { content: "export function main() {\n  return helper()\n}\n", mtime: BASE_TIME + 10 },
    "src/b.ts": { content: "function helper() {\n  return 1\n}\n// TODO: more\n", mtime: BASE_TIME + 20 },
    "src/c.js": { content: "function MAIN() {}\nconst x = a.b(c)\n", mtime: BASE_TIME + 5 },
    "src/.hidden.ts": { content: "function hidden() {}\n", mtime: BASE_TIME + 1 },
    "src/image.png": Buffer.from("\x89PNG\0\0function binary\n"),
    "ctx.txt": Array.from({ length: 20 }, (_, k) =>
      k + 1 === 5 || k + 1 === 12 ? `target ${k + 1}` : `line ${k + 1}`,
    ).join("\n"),
    "long.txt": `start ${"x".repeat(3000)} end\n`,
    "bad.txt": "foo(bar\n",
    ...many,
  })
  outside = makeTree({ "o.txt": "function outside() {}\n" })
})

afterAll(() => {
  rmSync(project, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

describe.each(backendNames())("grep on %s", (backend) => {
  let tool: SearchHarness
  beforeAll(() => {
    tool = searchHarness(GrepTool, () => project, backend)
  })
  afterEach(() => {
    tool.asks.length = 0
    tool.reply = "once"
  })
  afterAll(() => tool.close())

  const output = async (input: Record<string, unknown>, extra?: Record<string, unknown>) => {
    const result = await tool.run(input, extra ? { extra } : {})
    if (result.status !== "completed") throw new Error(`expected a result: ${JSON.stringify(result)}`)
    return result
  }

  it("groups matching lines by file, newest file first, as Line N: text", async () => {
    const result = await output({ pattern: "function \\w+", path: "src" })
    expect(result.output).toBe(
      [
        "Found 4 matches in 4 files",
        "",
        `${join(project, "src/b.ts")}:`,
        "  Line 1: function helper() {",
        "",
        `${join(project, "src/a.ts")}:`,
        "  Line 1: export function main() {",
        "",
        `${join(project, "src/c.js")}:`,
        "  Line 1: function MAIN() {}",
        "",
        `${join(project, "src/.hidden.ts")}:`,
        "  Line 1: function hidden() {}",
      ].join("\n"),
    )
    expect(result.title).toBe("function \\w+")
    expect(result.metadata).toEqual({
      matches: 4,
      files: 4,
      shown: 4,
      truncated: false,
      timedOut: false,
      outputMode: "content",
      backend,
    })
  })

  it("searches only the file when path is a file", async () => {
    const result = await output({ pattern: "return", path: "src/b.ts" })
    expect(result.output).toBe(
      ["Found 1 match in 1 file", "", `${join(project, "src/b.ts")}:`, "  Line 2:   return 1"].join("\n"),
    )
  })

  it("keeps the first 100 matching lines with honest totals, and says how to narrow", async () => {
    const result = await output({ pattern: "^hit", path: "many" })
    const lines = result.output.split("\n")
    expect(lines[0]).toBe("Found 150 matches in 3 files")
    expect(lines[2]).toBe(`${join(project, "many/f2.txt")}:`)
    expect(lines.filter((line) => line.startsWith("  Line "))).toHaveLength(100)
    expect(result.output).not.toContain("f0.txt")
    expect(result.output).toContain(
      "(Showing the first 100 of 150 matching lines, most recently modified files first. Use a more specific pattern, path or include to narrow the results.)",
    )
    expect(result.metadata).toMatchObject({ matches: 150, files: 3, shown: 100, truncated: true })
  })

  it("cuts lines at 2000 characters", async () => {
    const result = await output({ pattern: "start", path: "long.txt" })
    const line = result.output.split("\n").find((text) => text.startsWith("  Line 1: "))!
    expect(line).toBe(`  Line 1: start ${"x".repeat(2000 - 6)}...`)
  })

  it("fails on an invalid regex, naming the problem and the way out", async () => {
    const result = await tool.run({ pattern: "foo(bar" })
    expect(result.status).toBe("error")
    expect(result.status === "error" && result.error).toBe(
      'Invalid regex "foo(bar": unclosed group. Escape special characters with a backslash (\\( \\[ \\{ \\. \\*), or set fixedStrings to true to search for the text literally.',
    )
    const literal = await output({ pattern: "foo(bar", fixedStrings: true })
    expect(literal.output).toContain("  Line 1: foo(bar")
  })

  it("matches case-insensitively and literally when asked", async () => {
    expect((await output({ pattern: "function main", ignoreCase: true, path: "src" })).metadata.matches).toBe(
      2,
    )
    expect((await output({ pattern: "function main", path: "src" })).metadata.matches).toBe(1)
    const literal = await output({ pattern: "a.b(c)", fixedStrings: true })
    expect(literal.output).toContain("  Line 2: const x = a.b(c)")
    expect(literal.metadata.matches).toBe(1)
  })

  it("shows context lines before and after, with -- between separate groups", async () => {
    const both = await output({ pattern: "target", path: "ctx.txt", context: 1 })
    expect(both.output.split("\n").slice(3)).toEqual([
      "  Line 4- line 4",
      "  Line 5: target 5",
      "  Line 6- line 6",
      "  --",
      "  Line 11- line 11",
      "  Line 12: target 12",
      "  Line 13- line 13",
    ])
    const asymmetric = await output({ pattern: "target", path: "ctx.txt", before: 2, after: 0, context: 5 })
    expect(asymmetric.output.split("\n").slice(3, 6)).toEqual([
      "  Line 3- line 3",
      "  Line 4- line 4",
      "  Line 5: target 5",
    ])
    expect(asymmetric.metadata.shown).toBe(2)
  })

  it("lists files with matches, and counts, newest first", async () => {
    const files = await output({ pattern: "function", path: "src", outputMode: "files_with_matches" })
    expect(files.output).toBe(
      [
        "Found 4 files",
        ...["src/b.ts", "src/a.ts", "src/c.js", "src/.hidden.ts"].map((path) => join(project, path)),
      ].join("\n"),
    )
    const counts = await output({ pattern: "^hit|return", outputMode: "count" })
    expect(counts.output.split("\n")).toEqual([
      "Found 152 matches in 5 files",
      `${join(project, "many/f2.txt")}: 50`,
      `${join(project, "many/f1.txt")}: 50`,
      `${join(project, "many/f0.txt")}: 50`,
      `${join(project, "src/b.ts")}: 1`,
      `${join(project, "src/a.ts")}: 1`,
    ])
    expect(counts.metadata).toMatchObject({
      matches: 152,
      files: 5,
      shown: 5,
      truncated: false,
      outputMode: "count",
    })
  })

  it("filters with include, skips binary and ignored files", async () => {
    const result = await output({
      pattern: "function",
      include: "*.{js,png}",
      outputMode: "files_with_matches",
    })
    expect(result.output).toBe(["Found 1 file", join(project, "src/c.js")].join("\n"))
    const none = await output({ pattern: "function main\\(\\) \\{\\}" })
    expect(none.output).toBe("No matches found")
    expect(none.metadata).toMatchObject({ matches: 0, files: 0, truncated: false })
  })

  it("asks grep permission for the pattern, and external_directory outside the project", async () => {
    await output({ pattern: "helper", include: "*.ts" })
    expect(
      tool.asks.map((ask) => ({ permission: ask.permission, patterns: ask.patterns, always: ask.always })),
    ).toEqual([{ permission: "grep", patterns: ["helper"], always: ["*"] }])
    expect(tool.asks[0]!.metadata).toEqual({ pattern: "helper", path: undefined, include: "*.ts" })
    tool.asks.length = 0
    const file = await output({ pattern: "function", path: join(outside, "o.txt") })
    expect(file.output).toContain("  Line 1: function outside() {}")
    expect(tool.asks.map((ask) => [ask.permission, ask.patterns])).toEqual([
      ["grep", ["function"]],
      ["external_directory", [`${outside}/*`]],
    ])
    tool.reply = "reject"
    const rejected = await tool.run({ pattern: "function", path: outside })
    expect(rejected.status === "error" && rejected.kind).toBe("permission")
  })

  it("refuses an empty pattern and a missing path", async () => {
    const empty = await tool.run({ pattern: "" })
    expect(empty.status === "error" && empty.error).toContain("pattern is required")
    const missing = await tool.run({ pattern: "x", path: "nope" })
    expect(missing.status === "error" && missing.error).toBe(
      `Path not found: ${join(project, "nope")}. Check the path, or use glob to find the file.`,
    )
  })

  it("says so when the time limit cut the search", async () => {
    const result = await output({ pattern: "hit" }, { searchTimeoutMs: 0 })
    expect(result.metadata.timedOut).toBe(true)
    expect(result.output).toContain("time limit of 0 s")
  })

  it("stops at once on abort: the call is interrupted, never a success", async () => {
    const controller = new AbortController()
    const running = tool.run({ pattern: "hit" }, { abort: controller.signal })
    controller.abort()
    const result = await running
    expect(result.status === "error" && result.kind).toBe("interrupted")
  })
})
