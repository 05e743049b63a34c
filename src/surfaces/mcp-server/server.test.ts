// createMcpServer in-process, with the SDK client over in-memory transports: the tool list following
// the registry (list_changed on both protocol eras), asks the client never answers, and the end of
// a connection.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client, InMemoryTransport, type Tool as McpTool } from "@modelcontextprotocol/client"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { internals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { createMcpServer } from "./server.ts"
import { serveMcpStdio } from "./stdio.ts"

let dir: string
let toolbelt: Toolbelt
const cleanup: (() => Promise<unknown> | unknown)[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-mcp-server-"))
  toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    builtins: false,
    sweep: false,
    config: { permission: { hidden: "deny" } },
  })
  toolbelt.register({
    echo: Tool.make({
      description: "Echoes.",
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    }),
    hidden: Tool.make({ description: "Denied by the policy.", input: z.object({}), execute: () => "no" }),
    asker: Tool.make({
      description: "Asks, then waits to be aborted or answers.",
      input: z.object({ path: z.string() }),
      execute: async ({ path }, ctx) => {
        await ctx.ask({ permission: "external_directory", patterns: [path] })
        return `reached ${path}`
      },
    }),
    hold: Tool.make({
      description: "Runs until aborted.",
      input: z.object({}),
      execute: async (_input, ctx) => {
        await new Promise<void>((resolve) => ctx.abort.addEventListener("abort", () => resolve()))
        return "released"
      },
    }),
  })
})

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
  toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

/** Collects list_changed refreshes. */
function watcher() {
  const lists: string[][] = []
  return {
    lists,
    onChanged: (error: Error | null, tools: McpTool[] | null) => {
      if (!error && tools) lists.push(tools.map((tool) => tool.name).sort())
    },
  }
}

async function legacyClient(options: { elicit?: "never" | "once"; answerTimeoutMs?: number } = {}) {
  const changes = watcher()
  const { server, session } = await createMcpServer(toolbelt, {
    session: "ses_test",
    ...(options.answerTimeoutMs ? { answerTimeoutMs: options.answerTimeoutMs } : {}),
  })
  const client = new Client(
    { name: "test", version: "1" },
    {
      capabilities: options.elicit ? { elicitation: { form: {} } } : {},
      listChanged: { tools: { onChanged: changes.onChanged, debounceMs: 0 } },
    },
  )
  if (options.elicit === "never") client.setRequestHandler("elicitation/create", () => new Promise(() => {}))
  if (options.elicit === "once")
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: { decision: "once" },
    }))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  await client.connect(clientSide)
  cleanup.push(() => client.close())
  return { client, server, session, changes }
}

async function until(predicate: () => boolean, what: string, timeoutMs = 5_000) {
  const start = Date.now()
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe("the tool list", () => {
  it("lists what toolbelt advertises for the agent, without the tools the policy hides", async () => {
    const { client } = await legacyClient()
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(names).toEqual(["asker", "echo", "hold"])
  })

  it("follows the registry, and tells a 2025-era client (tools/list_changed)", async () => {
    const { client, changes } = await legacyClient()
    const handle = toolbelt.register({
      later: Tool.make({ description: "Registered later.", input: z.object({}), execute: () => "late" }),
    })
    await until(() => changes.lists.some((list) => list.includes("later")), "the new tool to be listed")
    expect((await client.callTool({ name: "later", arguments: {} })).content).toEqual([
      { type: "text", text: "late" },
    ])
    handle.close()
    await until(() => !changes.lists.at(-1)?.includes("later"), "the tool to be gone")
    await expect(client.callTool({ name: "later", arguments: {} })).rejects.toThrow(/Tool later not found/)
  })

  it("lists a replaced registration's new description, and calls the new one", async () => {
    const { client, changes } = await legacyClient()
    toolbelt.register({
      echo: Tool.make({
        description: "Echoes louder.",
        input: z.object({ text: z.string() }),
        execute: ({ text }) => text.toUpperCase(),
      }),
    })
    await until(() => changes.lists.length > 0, "list_changed")
    const echo = (await client.listTools()).tools.find((tool) => tool.name === "echo")
    expect(echo?.description).toBe("Echoes louder.")
    expect((await client.callTool({ name: "echo", arguments: { text: "hi" } })).content).toEqual([
      { type: "text", text: "HI" },
    ])
  })

  it("tells a 2026-07-28 client through its subscription", async () => {
    const changes = watcher()
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const served = serveMcpStdio({ toolbelt, transport: serverSide })
    cleanup.push(() => served.close())
    const client = new Client(
      { name: "test", version: "1" },
      {
        versionNegotiation: { mode: "auto" },
        listChanged: { tools: { onChanged: changes.onChanged, debounceMs: 0 } },
      },
    )
    await client.connect(clientSide)
    cleanup.push(() => client.close())
    expect(client.getProtocolEra()).toBe("modern")
    toolbelt.register({
      later: Tool.make({ description: "Registered later.", input: z.object({}), execute: () => "late" }),
    })
    await until(() => changes.lists.some((list) => list.includes("later")), "the new tool to be listed")
  })
})

describe("protocol versions", () => {
  it.each(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])(
    "serves a client that speaks only %s over stdio",
    async (version) => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const served = serveMcpStdio({ toolbelt, transport: serverSide })
      cleanup.push(() => served.close())
      const client = new Client({ name: "old", version: "1" }, { supportedProtocolVersions: [version] })
      await client.connect(clientSide)
      cleanup.push(() => client.close())
      expect(client.getNegotiatedProtocolVersion()).toBe(version)
      expect((await client.callTool({ name: "echo", arguments: { text: version } })).content).toEqual([
        { type: "text", text: version },
      ])
    },
  )
})

describe("asks the client does not answer", () => {
  it("a 2025-era client that does not answer in time: the ask is rejected, and the error says why", async () => {
    const { client, session } = await legacyClient({ elicit: "never", answerTimeoutMs: 200 })
    const result = await client.callTool({ name: "asker", arguments: { path: "/srv/*" } })
    expect(result.isError).toBe(true)
    expect((result.content as { text: string }[])[0]!.text).toMatch(
      /^Permission "external_directory" for \/srv\/\* was not answered \(the client could not show the ask: .*time.*\), so toolbelt rejected the call\.$/i,
    )
    expect(session.running).toBe(0)
    expect(toolbelt.permission.list("ses_test")).toEqual([])
  })

  it("a 2025-era client that cancels the call while its ask is shown: the call and the ask end", async () => {
    const { client, session } = await legacyClient({ elicit: "never" })
    const abort = new AbortController()
    const call = client
      .callTool({ name: "asker", arguments: { path: "/srv/*" } }, { signal: abort.signal })
      .catch((error: Error) => error)
    await until(() => toolbelt.permission.list("ses_test").length === 1, "the ask")
    abort.abort()
    expect(await call).toBeInstanceOf(Error)
    await until(() => session.running === 0, "the call to end")
    expect(toolbelt.permission.list("ses_test")).toEqual([])
  })

  it("a 2025-era client that answers: the call goes on", async () => {
    const { client } = await legacyClient({ elicit: "once" })
    expect((await client.callTool({ name: "asker", arguments: { path: "/srv/*" } })).content).toEqual([
      { type: "text", text: "reached /srv/*" },
    ])
  })

  it("a 2026-07-28 client that never comes back: the call is aborted, and a late retry is told so", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const served = serveMcpStdio({ toolbelt, transport: serverSide, answerTimeoutMs: 200 })
    cleanup.push(() => served.close())
    const client = new Client(
      { name: "test", version: "1" },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: "auto" },
        inputRequired: { autoFulfill: false },
      },
    )
    await client.connect(clientSide)
    cleanup.push(() => client.close())
    const first = (await client.callTool(
      { name: "asker", arguments: { path: "/srv/*" } },
      { allowInputRequired: true },
    )) as unknown as { resultType: string; requestState: string; inputRequests: Record<string, unknown> }
    expect(first.resultType).toBe("input_required")
    expect(Object.keys(first.inputRequests)).toEqual(["permission"])
    expect(toolbelt.permission.list()).toHaveLength(1)
    await until(() => toolbelt.permission.list().length === 0, "the ask to be withdrawn")
    const late = await client.callTool({
      name: "asker",
      arguments: { path: "/srv/*" },
      requestState: first.requestState,
      inputResponses: { permission: { action: "accept", content: { decision: "once" } } },
    } as never)
    expect(late.isError).toBe(true)
    expect((late.content as { text: string }[])[0]!.text).toMatch(
      /^This call is no longer waiting for an answer/,
    )
  })

  it("a 2026-07-28 client that answers by hand: the call goes on", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const served = serveMcpStdio({ toolbelt, transport: serverSide })
    cleanup.push(() => served.close())
    const client = new Client(
      { name: "test", version: "1" },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: "auto" },
        inputRequired: { autoFulfill: false },
      },
    )
    await client.connect(clientSide)
    cleanup.push(() => client.close())
    const first = (await client.callTool(
      { name: "asker", arguments: { path: "/srv/x/*" } },
      { allowInputRequired: true },
    )) as unknown as { requestState: string }
    const forged = await client.callTool({
      name: "asker",
      arguments: { path: "/srv/x/*" },
      requestState: "not-a-call",
      inputResponses: { permission: { action: "accept", content: { decision: "once" } } },
    } as never)
    expect(forged.isError).toBe(true)
    const answered = await client.callTool({
      name: "asker",
      arguments: { path: "/srv/x/*" },
      requestState: first.requestState,
      inputResponses: { permission: { action: "accept", content: { decision: "once" } } },
    } as never)
    expect(answered.content).toEqual([{ type: "text", text: "reached /srv/x/*" }])
  })
})

describe("the end of a connection", () => {
  it("aborts the session's running calls", async () => {
    const { client, session } = await legacyClient()
    const interrupted = internals(toolbelt).bus.once(
      "message.part.updated",
      (event) => event.properties.part.tool === "hold" && event.properties.part.state.status === "error",
      { timeout: 5_000 },
    )
    const call = client.callTool({ name: "hold", arguments: {} }).catch((error: Error) => error)
    await until(() => session.running === 1, "the call to start")
    await client.close()
    expect(await call).toBeInstanceOf(Error)
    const part = (await interrupted).properties.part
    expect(part.state.status === "error" && part.state.metadata?.interrupted).toBe(true)
  })
})
