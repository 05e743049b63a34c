// Tool search over MCP with the real SDK client: tools from real MCP server processes (the fixture
// serving kept definitions) deferred with `"tool_search": "on"`, found, listed for the session that
// found them, and callable by name whether listed or not.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, InMemoryTransport, type Tool as McpTool } from "@modelcontextprotocol/client"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { SERVE } from "../../../test/fixtures/tool-search/server/kept.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { createMcpServer } from "./server.ts"
import { serveMcpStdio } from "./stdio.ts"

let dir: string
let toolbelt: Toolbelt
const cleanup: (() => Promise<unknown> | unknown)[] = []

const local = (server: string) => ({ type: "local", command: [process.execPath, SERVE, server] })

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-mcp-search-"))
  toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    sweep: false,
    customTools: false,
    config: {
      tool_search: "on",
      mcp: { "toy-weather": local("toy-weather"), "toy-tickets": local("toy-tickets") },
      permission: { "toy-tickets_delete_ticket": "deny" },
    } as never,
  })
})

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

afterAll(async () => {
  await toolbelt.close()
  // The token counts' cache may still be being written when close returns.
  await rm(dir, { recursive: true, force: true, maxRetries: 5 })
})

/** A 2025-era client on its own MCP session, with the lists list_changed brought. */
async function connect(session: string) {
  const lists: string[][] = []
  const { server } = await createMcpServer(toolbelt, { session })
  const client = new Client(
    { name: "test", version: "1" },
    {
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (error: Error | null, tools: McpTool[] | null) => {
            if (!error && tools) lists.push(tools.map((tool) => tool.name).sort())
          },
        },
      },
    },
  )
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  await client.connect(clientSide)
  cleanup.push(() => client.close())
  const names = async () => (await client.listTools()).tools.map((tool) => tool.name)
  return { client, lists, names }
}

/** The names tool_search's output lists, best first (the lines before the first blank line). */
function found(result: { content: unknown }): string[] {
  const text = (result.content as { type: string; text: string }[])[0]!.text
  const list = text.split("\n\n")[0]!
  return list
    .split("\n")
    .map((line) => /^([\w-]+): /.exec(line)?.[1])
    .filter((name): name is string => name !== undefined)
}

function textOf(result: { content: unknown }): string {
  return (result.content as { type: string; text: string }[])[0]!.text
}

async function until(predicate: () => boolean, what: string, timeoutMs = 5_000) {
  const start = Date.now()
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe("tool search over MCP", () => {
  it("lists the built-ins and tool_search up front, not the MCP servers' tools", async () => {
    const { names } = await connect("ses_up_front")
    const listed = await names()
    expect(listed).toContain("tool_search")
    expect(listed).toContain("read")
    expect(listed.filter((name) => name.startsWith("toy-"))).toEqual([])
    // They are registered all the same (deferred, not gone).
    const all = await toolbelt.tools({ listing: "all", client: "mcp" })
    expect(all.filter((tool) => tool.deferred).map((tool) => tool.name)).toContain("toy-weather_get_alerts")
  })

  it("a search lists its matches for the session (list_changed), and a match is callable", async () => {
    const { client, lists, names } = await connect("ses_search")
    const result = await client.callTool({
      name: "tool_search",
      arguments: { query: "weather alerts for a state", limit: 2 },
    })
    expect(result.isError).toBeFalsy()
    const matches = found(result)
    expect(matches[0]).toBe("toy-weather_get_alerts")
    expect(textOf(result)).toContain('"state"')
    await until(() => lists.some((list) => list.includes("toy-weather_get_alerts")), "list_changed")
    const listed = await names()
    expect(listed).toEqual(expect.arrayContaining(matches))
    expect(listed).not.toContain("toy-tickets_create_ticket")

    const called = await client.callTool({ name: "toy-weather_get_alerts", arguments: { state: "CA" } })
    expect(called.isError).toBeFalsy()
    expect(textOf(called)).toBe('get_alerts called with {"state":"CA"}')
  })

  it("a deferred tool called by name, never searched, runs and is listed from then on", async () => {
    const { client, lists, names } = await connect("ses_by_name")
    expect(await names()).not.toContain("toy-tickets_create_ticket")
    const called = await client.callTool({
      name: "toy-tickets_create_ticket",
      arguments: { title: "Flaky test" },
    })
    expect(called.isError).toBeFalsy()
    expect(textOf(called)).toBe('create_ticket called with {"title":"Flaky test"}')
    await until(() => lists.some((list) => list.includes("toy-tickets_create_ticket")), "list_changed")
    expect(await names()).toContain("toy-tickets_create_ticket")
  })

  it("a tool the policy denies is neither found nor callable; an unknown name gets the SDK's error", async () => {
    const { client } = await connect("ses_denied")
    const result = await client.callTool({ name: "tool_search", arguments: { query: "delete a ticket" } })
    expect(found(result)).not.toContain("toy-tickets_delete_ticket")
    expect(textOf(result)).not.toContain("toy-tickets_delete_ticket")
    await expect(
      client.callTool({ name: "toy-tickets_delete_ticket", arguments: { id: 1 } }),
    ).rejects.toThrow(/Tool toy-tickets_delete_ticket not found/)
    await expect(client.callTool({ name: "toy-nothing", arguments: {} })).rejects.toThrow(
      /Tool toy-nothing not found/,
    )
  })

  it("a load in one session lists nothing more in another", async () => {
    const first = await connect("ses_one")
    const second = await connect("ses_two")
    const result = await first.client.callTool({
      name: "tool_search",
      arguments: { query: "close a ticket" },
    })
    expect(found(result)).toContain("toy-tickets_close_ticket")
    await until(() => first.lists.length > 0, "list_changed in the first session")
    expect(await first.names()).toContain("toy-tickets_close_ticket")
    expect(await second.names()).not.toContain("toy-tickets_close_ticket")
    expect(second.lists).toEqual([])
  })

  it("a 2026-07-28 client hears of the load through its subscription", async () => {
    const lists: string[][] = []
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const served = serveMcpStdio({ toolbelt, transport: serverSide })
    cleanup.push(() => served.close())
    const client = new Client(
      { name: "test", version: "1" },
      {
        versionNegotiation: { mode: "auto" },
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (error: Error | null, tools: McpTool[] | null) => {
              if (!error && tools) lists.push(tools.map((tool) => tool.name))
            },
          },
        },
      },
    )
    await client.connect(clientSide)
    cleanup.push(() => client.close())
    expect(client.getProtocolEra()).toBe("modern")
    await client.callTool({ name: "tool_search", arguments: { query: "forecast temperature wind" } })
    await until(() => lists.some((list) => list.includes("toy-weather_get_forecast")), "list_changed")
  })
})
