// Tool search over MCP tools: a real MCP server (the corpus's fixture server, over stdio), and the
// whole corpus of public servers' definitions, measured against the issue's 5% bound.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { loadCorpus } from "../../test/fixtures/tool-search/load.ts"
import { mcpTool } from "../adapters/mcp-client/mcp-tool.ts"
import { toolName } from "../adapters/mcp-client/name.ts"
import { McpPins } from "../platform/store/mcp-pins.ts"
import type { Config } from "../runtime/config/config.ts"
import { internals } from "./internals.ts"
import { createToolbelt, type Toolbelt } from "./toolbelt.ts"

const serve = resolve(
  import.meta.dirname,
  "..",
  "..",
  "test",
  "fixtures",
  "tool-search",
  "server",
  "serve.ts",
)

let dir: string
const open: Toolbelt[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-search-mcp-"))
})
afterEach(async () => {
  for (const toolbelt of open.splice(0)) await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

async function toolbelt(config: Config, mcp = true): Promise<Toolbelt> {
  const made = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    config,
    sweep: false,
    mcp,
    customTools: false,
  })
  open.push(made)
  return made
}

it("defers a real MCP server's tools, describes the server from its instructions, and calls what it finds", async () => {
  const belt = await toolbelt({
    tool_search: "on",
    permission: { "*": "allow" },
    mcp: { tickets: { type: "local", command: [process.execPath, serve, "toy-tickets"] } },
  })
  expect(belt.mcp?.servers[0]).toMatchObject({ status: "connected" })
  const listed = await belt.tools({ sessionID: "s" })
  expect(listed.filter((tool) => tool.entry.source === "mcp:tickets")).toHaveLength(0)
  const search = listed.find((tool) => tool.name === "tool_search")!
  expect(search.description).toMatch(/- tickets \(\d+ tools?\): An issue tracker/)

  const found = await belt.call({ tool: "tool_search", input: { query: "create ticket" }, sessionID: "s" })
  const first = (found as { output: string }).output.split("\n")[0]!
  const name = first.slice(0, first.indexOf(":"))
  expect(name).toMatch(/^tickets_/)
  expect((await belt.tools({ sessionID: "s" })).map((tool) => tool.name)).toContain(name)
})

it("takes every tool of a server whose schemas lack type object, as the reference GitLab server lists them", async () => {
  const { servers } = loadCorpus()
  const gitlab = servers.find((server) => server.server === "gitlab")!
  expect(gitlab.tools.some((tool) => !("type" in tool.inputSchema))).toBe(true)
  const belt = await toolbelt({
    tool_search: "off",
    mcp: { gitlab: { type: "local", command: [process.execPath, serve, "gitlab"] } },
  })
  expect(belt.mcp?.servers[0]).toMatchObject({ status: "connected" })
  const listed = (await belt.tools()).filter((tool) => tool.entry.source === "mcp:gitlab")
  expect(listed).toHaveLength(gitlab.tools.length)
  // Providers need an object schema: it is put in, the server's own keys kept.
  for (const tool of listed) expect(tool.inputSchema).toMatchObject({ type: "object", properties: {} })
})

it("with the corpus's public MCP servers as sources, what a client gets up front from them is at most 5% of their tokens", async () => {
  const { servers } = loadCorpus()
  const belt = await toolbelt({}, false)
  const pins = new McpPins(internals(belt).store.db)
  for (const server of servers) {
    const tools = Object.fromEntries(
      server.tools.map((tool) => {
        const name = toolName(server.server, tool.name)
        const made = mcpTool({
          server: server.server,
          name,
          tool: { ...tool, inputSchema: { ...tool.inputSchema, type: "object" } },
          client: () => undefined,
          timeoutMs: 1000,
          pins,
          projectID: dir,
        })
        return [name, made.tool]
      }),
    )
    belt.register(tools, { source: `mcp:${server.server}` })
  }
  const all = await belt.tools({ listing: "all" })
  const fromMcp = all.filter((tool) => tool.entry.source.startsWith("mcp:"))
  const mcpTokens = fromMcp.reduce((sum, tool) => sum + tool.tokens!, 0)
  const search = all.find((tool) => tool.name === "tool_search")!
  const upFront = fromMcp.filter((tool) => !tool.deferred).reduce((sum, tool) => sum + tool.tokens!, 0)
  const share = (upFront + search.tokens!) / mcpTokens
  console.log(
    `tool search: ${servers.length} servers, ${fromMcp.length} MCP tools, ${mcpTokens} tokens; up front ${upFront} + tool_search ${search.tokens} = ${(share * 100).toFixed(2)}%`,
  )
  expect(fromMcp.every((tool) => tool.deferred)).toBe(true)
  expect(share).toBeLessThanOrEqual(0.05)
})
