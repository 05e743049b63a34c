// The 5% check: with every server of the corpus configured as an MCP source of its own (one
// real server process serving each kept server over Streamable HTTP at its own path) and tool search
// left at its default, what an MCP client gets up front of the MCP-sourced definitions, tool_search's
// own included, is at most 5% of their tokens.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import { afterAll, expect, it } from "vitest"
import { corpusServers, definitionsOf, SERVE } from "../../../test/fixtures/tool-search/server/kept.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { TokenCounter } from "../../platform/text/tokens/count.ts"
import { createMcpServer } from "./server.ts"

const servers = corpusServers()
const opened: { dir: string; toolbelt: Toolbelt }[] = []
const children: ChildProcess[] = []

afterAll(async () => {
  for (const { dir, toolbelt } of opened) {
    await toolbelt.close()
    await rm(dir, { recursive: true, force: true, maxRetries: 5 })
  }
  for (const child of children) child.kill()
})

/** Starts the fixture serving every corpus server over HTTP (one process, not one each: ~90 MB apiece). */
async function serveAll(): Promise<string> {
  const child = spawn(process.execPath, [SERVE, "--http", ...servers], {
    stdio: ["ignore", "pipe", "inherit"],
  })
  children.push(child)
  let out = ""
  for await (const chunk of child.stdout!) {
    out += String(chunk)
    const match = /LISTENING (\S+)/.exec(out)
    if (match) return match[1]!
  }
  throw new Error(`the fixture server did not start: ${out}`)
}

it.skipIf(servers.length === 0)(
  "the MCP-sourced definitions listed up front, tool_search included, are at most 5% of them all",
  { timeout: 120_000 },
  async () => {
    const base = await serveAll()
    const mcp = Object.fromEntries(
      servers.map((server) => [server, { type: "remote", url: `${base}${server}` }]),
    )
    const dir = await mkdtemp(join(tmpdir(), "toolbelt-mcp-budget-"))
    const toolbelt = await createToolbelt({
      directory: dir,
      dataDir: join(dir, ".data"),
      store: "memory",
      sweep: false,
      customTools: false,
      config: { mcp } as never,
    })
    opened.push({ dir, toolbelt })

    // Every definition of the corpus, as toolbelt registered it from the servers.
    const all = (await toolbelt.tools({ listing: "all", client: "mcp" })).filter((tool) =>
      tool.entry.source.startsWith("mcp:"),
    )
    const kept = servers.reduce((sum, server) => sum + definitionsOf(server).length, 0)
    expect(all).toHaveLength(kept)
    const allTokens = all.reduce((sum, tool) => sum + tool.tokens!, 0)

    // What a client gets up front.
    let started = performance.now()
    const { server } = await createMcpServer(toolbelt, { session: "ses_budget" })
    const createMs = performance.now() - started
    // A second session: the counts are made, the tools initialised.
    started = performance.now()
    const second = await createMcpServer(toolbelt, { session: "ses_budget_2" })
    const againMs = performance.now() - started
    second.session.close()
    const client = new Client({ name: "budget", version: "1" })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    await client.connect(clientSide)
    started = performance.now()
    const listed = (await client.listTools()).tools
    const listMs = performance.now() - started
    await client.close()
    const mcpSourced = new Set(all.map((tool) => tool.name))
    const counted = listed.filter((tool) => mcpSourced.has(tool.name) || tool.name === "tool_search")
    expect(counted.map((tool) => tool.name)).toContain("tool_search")
    const counts = await new TokenCounter().count(
      counted.map((tool) =>
        JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }),
      ),
    )
    const upFront = counts.reduce((sum, count) => sum + count, 0)

    const share = upFront / allTokens
    console.info(
      `tool search budget: ${servers.length} servers, ${all.length} MCP tools, ${allTokens} tokens (o200k_base); ` +
        `up front ${counted.length} definitions (${counted.map((tool) => tool.name).join(", ")}), ` +
        `${upFront} tokens = ${(share * 100).toFixed(2)}%; an MCP session made in ${createMs.toFixed(0)} ms, a second in ${againMs.toFixed(0)} ms (every tool registered), tools/list answered in ${listMs.toFixed(1)} ms`,
    )
    expect(share).toBeLessThanOrEqual(0.05)
  },
)
