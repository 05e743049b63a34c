// Odd input through the real command line: whatever goes wrong, `--json` prints exactly one JSON
// object and the exit code says whose fault it was (DESIGN.md: 1 the tool, 2 the command line).
import type { SpawnSyncReturns } from "node:child_process"
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "./fixtures/cli.ts"

const _root = resolve(import.meta.dirname, "..")
let project: string
let home: string

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-odd-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-odd-home-"))
  await writeFile(join(project, "a.txt"), "hello\n")
})

afterAll(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

function toolbelt(args: string[], input = ""): SpawnSyncReturns<string> {
  return runCli(args, { cwd: project, home, input })
}

/** stdout is exactly one JSON object (one line), and it is an error. */
function oneJsonError(result: SpawnSyncReturns<string>): { status: string; error: string } {
  const lines = result.stdout.split("\n").filter(Boolean)
  expect(lines).toHaveLength(1)
  const value = JSON.parse(lines[0]!)
  expect(value).toMatchObject({ status: "error", error: expect.any(String) })
  return value
}

describe("a bad --cwd", () => {
  const cases: [string, () => string, RegExp][] = [
    ["missing", () => join(project, "no-such-dir"), /does not exist/],
    ["a file", () => join(project, "a.txt"), /is a file, not a directory/],
    ["under a file", () => join(project, "a.txt", "sub"), /does not exist|not a directory/],
  ]

  it.each(cases)(
    "(%s) is a usage error in one JSON object for call, tools and permissions",
    (_, dir, says) => {
      for (const args of [["call", "read", '{"filePath":"a.txt"}'], ["tools"], ["permissions", "list"]]) {
        const result = toolbelt([...args, "--cwd", dir(), "--json"])
        expect(result.status).toBe(2)
        expect(oneJsonError(result).error).toMatch(says)
        expect(result.stderr).not.toMatch(/ENOENT|ENOTDIR/)
      }
    },
  )

  it.each(cases)("(%s) is a usage error on stderr for mcp and run", (_, dir, says) => {
    for (const args of [
      ["mcp"],
      ["run", "hi", "--model", "openai-compatible/x", "--base-url", "http://127.0.0.1:9/v1"],
    ]) {
      const result = toolbelt([...args, "--cwd", dir()])
      expect(result.status).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toMatch(says)
    }
  })
})

describe("deeply nested arguments", () => {
  const levels = 200_000
  const shapes: [string, string][] = [
    ["arrays", `{"filePath":"a.txt","x":${"[".repeat(levels)}${"]".repeat(levels)}}`],
    ["objects", `{"filePath":"a.txt","x":${'{"a":'.repeat(levels)}1${"}".repeat(levels)}}`],
    ["arrays at the root", `${"[".repeat(levels)}${"]".repeat(levels)}`],
  ]

  it.each(shapes)("of %s are refused with a validation error, for every tool", async (_, args) => {
    for (const tool of ["read", "write", "bash"]) {
      const result = toolbelt(["call", tool, "-", "--json"], args)
      expect(result.status).toBe(1)
      expect(oneJsonError(result).error).toMatch(/nested more than 512 levels deep/)
      expect(result.stderr).not.toContain("Maximum call stack")
    }
    expect(await readdir(project)).toEqual(["a.txt"])
  })
})

describe("a path with a NUL byte", () => {
  const calls: [string, Record<string, unknown>][] = [
    ["read", { filePath: "a\u0000b" }],
    ["write", { filePath: "a\u0000b", content: "x" }],
    ["edit", { filePath: "a\u0000b", oldString: "", newString: "x" }],
    ["multiedit", { filePath: "a\u0000b", edits: [{ oldString: "", newString: "x" }] }],
    ["list", { path: "a\u0000b" }],
    ["glob", { pattern: "*", path: "a\u0000b" }],
    ["grep", { pattern: "x", path: "a\u0000b" }],
    ["apply_patch", { patchText: "*** Begin Patch\n*** Add File: a\u0000b\n+x\n*** End Patch" }],
    ["bash", { command: "ls", workdir: "a\u0000b", description: "list" }],
  ]

  it.each(calls)("(%s) is a model-readable error, not a defect", async (tool, input) => {
    const result = toolbelt(["call", tool, JSON.stringify(input), "--json", "--yes"])
    expect(result.status).toBe(1)
    const { error } = oneJsonError(result)
    expect(error).not.toMatch(/ERR_INVALID_ARG_VALUE|must be a string/)
    expect(result.stderr).not.toContain("defect")
    expect(await readdir(project)).toEqual(["a.txt"])
  })
})

describe("over MCP (stdio)", () => {
  it("answers 200,000-deep arguments and a NUL-byte path with a tool error, and keeps serving", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`
    const lines = [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"filePath":"a.txt","x":${deep}}}}`,
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"filePath":"a\\u0000b"}}}',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","arguments":{"filePath":"a.txt"}}}',
    ]
    // stdin ends after the last request: the server answers what it has, then exits.
    const result = toolbelt(["mcp"], `${lines.join("\n")}\n`)
    const answers = new Map<number, { result: { content: { text: string }[]; isError?: boolean } }>()
    for (const line of result.stdout.split("\n").filter(Boolean)) {
      const message = JSON.parse(line)
      answers.set(message.id, message)
    }
    expect(answers.get(2)?.result.isError).toBe(true)
    expect(answers.get(2)?.result.content[0]?.text).toMatch(/nested more than 512 levels deep/)
    expect(answers.get(3)?.result.isError).toBe(true)
    expect(answers.get(3)?.result.content[0]?.text).toMatch(/contains a NUL byte/)
    expect(answers.get(4)?.result.content[0]?.text).toContain("hello")
    expect(result.stderr).not.toMatch(/Maximum call stack|defect/)
  })
})
