// `toolbelt mcp` started by a person in a terminal says on stderr what it is for; started by a client
// (stdin a pipe), it says nothing, and its stdout carries only the protocol either way.
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { BIN, cliEnv, runCliAsync } from "../fixtures/cli.ts"
import { hasPty, onTerminal } from "../fixtures/pty.ts"

const NOTE = "toolbelt mcp: this speaks MCP (JSON-RPC) on stdin/stdout for an MCP client"

let project: string
let home: string

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-mcp-by-hand-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-mcp-by-hand-home-"))
})

afterEach(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

/** Resolves once `file` exists and holds `text` (the server writes it at start-up). */
async function fileHolds(file: string, text: string): Promise<string> {
  for (;;) {
    const content = existsSync(file) ? await readFile(file, "utf8") : ""
    if (content.includes(text)) return content
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe.skipIf(!hasPty)("toolbelt mcp at a terminal", () => {
  it("says on stderr that it speaks MCP on stdin/stdout and how to configure a client", async () => {
    const terminal = onTerminal(process.execPath, [BIN, "mcp"], { cwd: project, env: cliEnv(home) })
    await terminal.waitFor(NOTE)
    expect(terminal.screen()).toContain("toolbelt mcp --help shows how for Claude Desktop")
    // Ctrl+D at the start of a line: stdin ends, and so does the server.
    terminal.child.stdin!.write("\u0004")
    expect(await terminal.exited).toBe(0)
  })

  it("never on stdout: with stderr sent to a file, the terminal shows nothing of it", async () => {
    const errors = join(home, "stderr.txt")
    // stdin and stdout stay on the terminal; only stderr goes to the file.
    const terminal = onTerminal(
      "/bin/sh",
      ["-c", 'exec "$0" "$1" mcp 2>"$2"', process.execPath, BIN, errors],
      { cwd: project, env: cliEnv(home) },
    )
    const stderr = await fileHolds(errors, NOTE)
    expect(stderr.split(NOTE)).toHaveLength(2)
    terminal.child.stdin!.write("\u0004")
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen()).not.toContain("toolbelt mcp:")
  })
})

it("started by a client (stdin a pipe), says nothing of the kind", async () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  }
  const result = await runCliAsync(["mcp"], { cwd: project, home, input: `${JSON.stringify(initialize)}\n` })
  expect(result.status).toBe(0)
  expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ id: 1, result: { serverInfo: {} } })
  expect(result.stderr).not.toContain("toolbelt mcp:")
})
