// The MCP client configurations the README and `toolbelt mcp --help` show work as written for someone
// who has only this clone: each one's command is started as the client would start it (the client's
// PATH, without the clone's node_modules/.bin, so an older system Node hands over to the pinned one),
// and the official MCP client lists the tools and reads a file through it.

import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, join, resolve } from "node:path"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MCP_HELP } from "../src/surfaces/cli/commands/mcp.ts"

const ROOT = resolve(import.meta.dirname, "..")
const README = readFileSync(join(ROOT, "README.md"), "utf8")

interface Launch {
  readonly where: string
  readonly command: string
  readonly args: readonly string[]
}

interface Remote {
  readonly where: string
  readonly url: string
  readonly headers: Record<string, string>
}

/** The servers over HTTP in a JSON text: `mcpServers` entries with a `url` (and the headers they send). */
function remotes(where: string, text: string): Remote[] {
  const config = JSON.parse(text) as {
    mcpServers?: Record<string, { url?: string; headers?: Record<string, string> }>
  }
  return Object.entries(config.mcpServers ?? {})
    .filter(([, server]) => server.url !== undefined)
    .map(([name, server]) => ({
      where: `${where} mcpServers.${name}`,
      url: server.url!,
      headers: server.headers ?? {},
    }))
}

/** The stdio server launches in a JSON text: Claude/Cursor's `mcpServers` and opencode's `mcp`. */
function launches(where: string, text: string): Launch[] {
  const config = JSON.parse(text) as {
    mcpServers?: Record<string, { command?: string; args?: string[] }>
    mcp?: Record<string, { type: string; command: string[] }>
  }
  const out: Launch[] = []
  for (const [name, server] of Object.entries(config.mcpServers ?? {}))
    if (server.command !== undefined)
      out.push({ where: `${where} mcpServers.${name}`, command: server.command, args: server.args ?? [] })
  for (const [name, server] of Object.entries(config.mcp ?? {}))
    if (server.type === "local")
      out.push({ where: `${where} mcp.${name}`, command: server.command[0]!, args: server.command.slice(1) })
  return out
}

const configBlocks = [...README.matchAll(/^```json\n([\s\S]*?)^```$/gm)].filter((match) =>
  /"(mcpServers|mcp)"/.test(match[1]!),
)
const fromReadme = configBlocks.flatMap((match, index) =>
  launches(`README json block ${index + 1}`, match[1]!),
)
const remoteFromReadme = configBlocks.flatMap((match, index) =>
  remotes(`README json block ${index + 1}`, match[1]!),
)
const fromHelp = MCP_HELP.split("\n")
  .map((line) => line.trim())
  .filter((line) => line.startsWith('{"mcp'))
  .flatMap((line) => launches("toolbelt mcp --help", line))

describe("the MCP client configurations shown to users", () => {
  let project: string
  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), "toolbelt-configs-"))
    await writeFile(join(project, "hello.txt"), "hello from the project\n")
  })
  afterAll(async () => {
    await rm(project, { recursive: true, force: true })
  })

  it("are there: Claude Desktop, Cursor and opencode in the README, and in the help", () => {
    expect(fromReadme.length).toBeGreaterThanOrEqual(3)
    expect(fromReadme.some((launch) => launch.where.includes("mcp.toolbelt"))).toBe(true)
    expect(fromHelp.length).toBeGreaterThanOrEqual(2)
  })

  it.each([...fromReadme, ...fromHelp])("$where starts a server that serves the project", async (launch) => {
    const args = launch.args.map((arg) =>
      arg
        .replace("/path/to/toolbelt", ROOT)
        .replace("/path/to/project", project)
        .replace(/\$\{workspaceFolder\}/, project),
    )
    const home = await mkdtemp(join(tmpdir(), "toolbelt-configs-home-"))
    const client = new Client({ name: "readme-config", version: "1.0.0" })
    try {
      await client.connect(
        new StdioClientTransport({
          command: launch.command.replace("/path/to/toolbelt", ROOT),
          args,
          env: { PATH: clientPath(), HOME: home, TOOLBELT_DATA_DIR: join(home, "data") },
          stderr: "pipe",
        }),
      )
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names).toContain("read")
      const result = await client.callTool({ name: "read", arguments: { filePath: "hello.txt" } })
      expect(JSON.stringify(result.content)).toContain("hello from the project")
    } finally {
      await client.close()
      await rm(home, { recursive: true, force: true })
    }
  })

  it("include a server over HTTP that sends the token as the server asks", () => {
    expect(remoteFromReadme.length).toBeGreaterThanOrEqual(1)
  })

  it.each(remoteFromReadme)("$where reaches toolbelt mcp --http with its header", async (remote) => {
    const home = await mkdtemp(join(tmpdir(), "toolbelt-configs-home-"))
    const token = "readme-config-token"
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin", "toolbelt.js"), "mcp", "--cwd", project, "--http", "0"],
      {
        env: {
          PATH: clientPath(),
          HOME: home,
          TOOLBELT_DATA_DIR: join(home, "data"),
          TOOLBELT_MCP_TOKEN: token,
        },
        stdio: ["ignore", "ignore", "pipe"],
      },
    )
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const closed = new Promise((resolve) => child.once("exit", resolve))
    const client = new Client({ name: "readme-config", version: "1.0.0" })
    try {
      const served = await new Promise<URL>((resolve, reject) => {
        child.stderr.on("data", () => {
          const match = /at (http:\/\/\S+\/mcp)/.exec(stderr)
          if (match) resolve(new URL(match[1]!))
        })
        child.once("exit", () => reject(new Error(`toolbelt mcp --http exited:\n${stderr}`)))
      })
      // The README's address and header, with this run's port and token.
      const url = new URL(remote.url)
      url.port = served.port
      const headers = Object.fromEntries(
        Object.entries(remote.headers).map(([name, value]) => [name, value.replace("<token>", token)]),
      )
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
      const result = await client.callTool({ name: "read", arguments: { filePath: "hello.txt" } })
      expect(JSON.stringify(result.content)).toContain("hello from the project")
    } finally {
      await client.close()
      child.kill("SIGTERM")
      await closed
      await rm(home, { recursive: true, force: true })
    }
  })
})

/** The PATH a desktop client starts servers with: the user's, not npm's (no node_modules/.bin). */
function clientPath(): string {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.includes(join("node_modules", ".bin")))
    .join(delimiter)
}
