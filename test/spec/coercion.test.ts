// The spec's read coerces `offset` and `limit` from strings; toolbelt does it for every tool, at decode,
// and only for exact strings. Through the real command line.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testBelt } from "../../src/adapters/ai/fixtures/toolbelt.ts"
import { inputCodec, normaliseInputSchema } from "../../src/adapters/mcp-client/schema.ts"
import * as Tool from "../../src/runtime/tool/index.ts"
import { runCli } from "../fixtures/cli.ts"

let root: string
let project: string
let home: string

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-coerce-"))
  project = join(root, "project")
  home = join(root, "home")
  await mkdir(project)
  await mkdir(home)
  await writeFile(join(project, "notes.txt"), "one\ntwo\nthree\n")
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

function call(tool: string, input: unknown) {
  const run = runCli(["call", tool, JSON.stringify(input), "--cwd", project, "--json"], {
    cwd: project,
    home,
  })
  return JSON.parse(run.stdout) as
    | { status: "completed"; output: string; metadata: Record<string, unknown> }
    | { status: "error"; error: string }
}

describe("coercion at decode", { timeout: 120_000 }, () => {
  it('read with "offset": "2", "limit": "1" returns line 2, and says what was coerced', () => {
    const result = call("read", { filePath: "notes.txt", offset: "2", limit: "1" })
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    expect(result.output).toContain("2: two")
    expect(result.output).not.toContain("1: one")
    expect(result.output).not.toContain("3: three")
    expect(result.metadata.coerced).toEqual([
      { path: "offset", from: "2", to: 2 },
      { path: "limit", from: "1", to: 1 },
    ])
  })

  it('nothing inexact: "2abc" and " 2" stay errors that name the field', () => {
    for (const offset of ["2abc", " 2", "0x10"]) {
      const result = call("read", { filePath: "notes.txt", offset })
      expect(result.status, offset).toBe("error")
      expect(result.status === "error" && result.error).toContain("offset: Invalid input: expected number")
    }
  })

  it('booleans in other tools: grep\'s ignoreCase from "true"', () => {
    const result = call("grep", { pattern: "TWO", ignoreCase: "true", path: "." })
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    expect(result.output).toContain("notes.txt")
    expect(result.metadata.coerced).toEqual([{ path: "ignoreCase", from: "true", to: true }])
  })
})

describe("coercion for an MCP server's tool (its JSON Schema, not Zod)", () => {
  it("coerces what the server's schema wants, and passes the coerced arguments on", async () => {
    const belt = await testBelt()
    try {
      const received: unknown[] = []
      belt.toolbelt.register({
        remote_page: Tool.make({
          description: "A remote tool with a server's JSON Schema.",
          input: inputCodec(
            normaliseInputSchema({
              properties: { page: { type: "integer" }, exact: { type: "boolean" }, q: { type: "string" } },
              required: ["page"],
            }),
          ),
          execute: (args) => {
            received.push(args)
            return "ok"
          },
        }),
      })
      const result = await belt.toolbelt.call({
        tool: "remote_page",
        input: { page: "3", exact: "false", q: "7" },
        sessionID: "ses_mcp_coerce",
      })
      expect(result).toMatchObject({
        status: "completed",
        metadata: {
          coerced: [
            { path: "page", from: "3", to: 3 },
            { path: "exact", from: "false", to: false },
          ],
        },
      })
      expect(received).toEqual([{ page: 3, exact: false, q: "7" }])
      const refused = await belt.toolbelt.call({
        tool: "remote_page",
        input: { page: "3x" },
        sessionID: "ses_mcp_coerce",
      })
      expect(refused.status).toBe("error")
    } finally {
      await belt.close()
    }
  })
})
