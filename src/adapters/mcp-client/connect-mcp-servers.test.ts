import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { McpPins } from "../../platform/store/mcp-pins.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import type { Logger } from "../../platform/util/log.ts"
import type { Config } from "../../runtime/config/config.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"
import type { Reply } from "../../runtime/permission/simple.ts"
import { connectMcpServers, type McpServers } from "./connect-mcp-servers.ts"

const FIXTURE = fileURLToPath(new URL("./fixtures/server.ts", import.meta.url))
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

/** A local server entry running the fixture over stdio. */
function local(extra: Record<string, unknown> = {}, environment: Record<string, string> = {}) {
  return { type: "local", command: [process.execPath, FIXTURE, "stdio"], environment, ...extra }
}

interface Started {
  readonly url: string
  readonly child: ChildProcess
}

const children: ChildProcess[] = []

/** Starts the fixture as an HTTP server (`http`: Streamable HTTP; `sse`: legacy SSE only). */
async function serve(mode: "http" | "sse", env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [FIXTURE, mode], {
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, ...env },
  })
  children.push(child)
  let out = ""
  for await (const chunk of child.stdout!) {
    out += String(chunk)
    const match = /LISTENING (\S+)/.exec(out)
    if (match) return { url: match[1]!, child }
  }
  throw new Error(`the ${mode} fixture did not start: ${out}`)
}

interface Setup {
  readonly dir: string
  readonly log: string
  readonly toolbelt: Toolbelt
  readonly mcp: McpServers
  readonly asks: AskRequest[]
  readonly parts: ToolPart[]
  /** What was logged, as `<level> <message>`. */
  readonly logs: string[]
}

function capture(into: string[]): Logger {
  const write = (level: string) => (message: string) => {
    into.push(`${level} ${message}`)
  }
  return { debug: () => {}, info: write("info"), warn: write("warn"), error: write("error") }
}

const opened: { dir: string; toolbelt: Toolbelt; mcp: McpServers }[] = []

/**
 * A project with the real runtime (createToolbelt) and the given MCP servers connected to its
 * registry. `decide` answers the asks the rules leave open; `permission` is the config's rules.
 */
async function setup(
  mcpConfig: (log: string) => Record<string, unknown>,
  options: { decide?: (request: AskRequest) => Reply; permission?: Record<string, unknown> } = {},
): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-mcp-"))
  const log = join(dir, "server.log")
  const asks: AskRequest[] = []
  const parts: ToolPart[] = []
  const logs: string[] = []
  const config: Config = options.permission ? { permission: options.permission } : {}
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, "data"),
    store: "memory",
    sweep: false,
    config,
    parts: (part) => {
      parts.push(part)
    },
    decide: async (request) => {
      asks.push(request)
      return options.decide ? options.decide(request) : "once"
    },
  })
  const mcp = await connectMcpServers({
    config: mcpConfig(log),
    registry: internals(toolbelt).registry,
    store: internals(toolbelt).store,
    directory: dir,
    log: capture(logs),
  })
  opened.push({ dir, toolbelt, mcp })
  return { dir, log, toolbelt, mcp, asks, parts, logs }
}

async function teardown(): Promise<void> {
  for (const { dir, toolbelt, mcp } of opened.splice(0)) {
    await mcp.close()
    toolbelt.close()
    await rm(dir, { recursive: true, force: true })
  }
  for (const child of children.splice(0)) child.kill("SIGKILL")
}

async function until<T>(probe: () => T | Promise<T>, what: string, ms = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

async function events(log: string): Promise<string[]> {
  try {
    return (await readFile(log, "utf8")).split("\n").filter(Boolean)
  } catch {
    return []
  }
}

describe.each(["stdio", "http"] as const)("a server over %s", (transport) => {
  let s: Setup

  beforeAll(async () => {
    const http = transport === "http" ? await serve("http") : undefined
    s = await setup(() => ({ fx: http ? { type: "remote", url: http.url } : local() }))
  })
  afterAll(teardown)

  it("is connected and its tools are registered with the server's own schemas", async () => {
    expect(s.mcp.servers).toEqual([
      {
        name: "fx",
        status: "connected",
        transport: transport === "http" ? "streamable-http" : "stdio",
        tools: expect.arrayContaining(["fx_echo", "fx_image", "fx_structured", "fx_slow"]),
      },
    ])
    const tools = await s.toolbelt.tools()
    const echo = tools.find((tool) => tool.name === "fx_echo")!
    expect(echo.description).toBe("Echoes the text back.")
    expect(echo.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string", description: "What to echo" } },
      required: ["text"],
    })
    expect(echo.annotations).toEqual({ readOnly: true })
    const image = tools.find((tool) => tool.name === "fx_image")!
    expect(image.inputSchema).toMatchObject({ type: "object", properties: {} })
    expect(image.entry.source).toBe("mcp:fx")
  })

  it("calls a tool through the pipeline and returns its text", async () => {
    const result = await s.toolbelt.call({ tool: "fx_echo", input: { text: "hi" } })
    expect(result).toMatchObject({ status: "completed", output: "echo: hi" })
  })

  it("joins text parts with a blank line", async () => {
    const result = await s.toolbelt.call({ tool: "fx_two_texts", input: {} })
    expect(result).toMatchObject({ status: "completed", output: "first\n\nsecond" })
  })

  it("returns images as data: URL attachments", async () => {
    const result = await s.toolbelt.call({ tool: "fx_image", input: {} })
    expect(result).toMatchObject({
      status: "completed",
      output: "a pixel",
      attachments: [{ type: "file", mime: "image/png", url: `data:image/png;base64,${PNG}` }],
    })
  })

  it("uses structuredContent as JSON when there is no text", async () => {
    const result = await s.toolbelt.call({ tool: "fx_structured", input: {} })
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    expect(JSON.parse(result.output)).toEqual({ count: 2, items: ["a", "b"] })
    expect(result.metadata.truncated).toBe(false)
  })

  it("turns isError into a tool failure with the tool's text", async () => {
    expect(await s.toolbelt.call({ tool: "fx_fail", input: {} })).toMatchObject({
      status: "error",
      kind: "failure",
      error: "the tool failed: boom",
    })
    expect(await s.toolbelt.call({ tool: "fx_fail_empty", input: {} })).toMatchObject({
      status: "error",
      kind: "failure",
      error: "MCP tool returned an error",
    })
  })

  it("rejects arguments that do not fit the server's schema before calling", async () => {
    const result = await s.toolbelt.call({ tool: "fx_echo", input: { text: 3 } })
    expect(result).toMatchObject({ status: "error", kind: "invalid" })
    if (result.status === "error") expect(result.error).toContain("text: Invalid input: expected string")
  })

  it("registers odd and long names sanitised, at most 64 characters, and callable", async () => {
    const names = (await s.toolbelt.tools()).map((tool) => tool.name).filter((name) => name.startsWith("fx_"))
    for (const name of names) expect(name).toMatch(NAME)
    expect(names).toContain("fx_weird_name_x_y")
    const long = names.find((name) => name.startsWith("fx_a_really_long"))!
    expect(long).toHaveLength(64)
    expect(long).toMatch(/_[0-9a-f]{8}$/)
    expect(await s.toolbelt.call({ tool: "fx_weird_name_x_y", input: {} })).toMatchObject({ output: "weird" })
    expect(await s.toolbelt.call({ tool: long, input: {} })).toMatchObject({ output: "long" })
  })

  it("reports progress as live metadata and restarts the timeout on it", async () => {
    const callID = `call_progress_${transport}`
    const result = await s.toolbelt.call({ tool: "fx_progress", input: { steps: 3 }, callID })
    expect(result).toMatchObject({ status: "completed", output: "done in 3 steps" })
    const progress = s.parts
      .filter((part) => part.callID === callID && part.state.status === "running")
      .map((part) => (part.state.status === "running" ? part.state.metadata : undefined))
      .filter(Boolean)
    const steps = [
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]
    // The last notification may arrive just after the result (then the call is no longer running and
    // it is dropped, never applied out of order): what was shown is the steps in order, at least two.
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress).toEqual(steps.slice(0, progress.length))
  })

  it("follows tools/list_changed: a tool the server adds gets registered", async () => {
    expect(internals(s.toolbelt).registry.resolve("fx_added")).toBeUndefined()
    expect(await s.toolbelt.call({ tool: "fx_add_tool", input: {} })).toMatchObject({ output: "added" })
    await until(() => internals(s.toolbelt).registry.resolve("fx_added"), "fx_added to be registered")
    expect(s.mcp.servers[0]!.tools).toContain("fx_added")
    expect(await s.toolbelt.call({ tool: "fx_added", input: {} })).toMatchObject({ output: "I was added" })
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "still" } })).toMatchObject({
      output: "echo: still",
    })
  })
})

describe("permission", () => {
  afterEach(teardown)

  it("asks the tool's own key, <server>_<tool>, and a deny stops the call", async () => {
    const s = await setup((log) => ({ fx: local({}, { FIXTURE_LOG: log }) }), {
      permission: { fx_echo: "ask", fx_two_texts: "deny" },
      decide: () => "reject",
    })
    const asked = await s.toolbelt.call({ tool: "fx_echo", input: { text: "no" } })
    expect(asked).toMatchObject({ status: "error", kind: "permission" })
    expect(s.asks).toMatchObject([{ permission: "fx_echo", patterns: ["*"], always: ["*"] }])
    expect(await s.toolbelt.call({ tool: "fx_two_texts", input: {} })).toMatchObject({
      status: "error",
      kind: "permission",
    })
    // A denied tool is hidden from the model, like any other.
    expect((await s.toolbelt.tools()).map((tool) => tool.name)).not.toContain("fx_two_texts")
    expect(await events(s.log)).not.toContain("echo no")
  })
})

describe("timeouts and cancellation", () => {
  afterEach(teardown)

  it("a call slower than the configured timeout fails clearly, and the server is told to stop", async () => {
    const s = await setup((log) => ({ fx: local({ timeout: 300 }, { FIXTURE_LOG: log }) }))
    // The tool would take ten minutes, past the test timeout: only the 300 ms timeout can end the call.
    const result = await s.toolbelt.call({ tool: "fx_slow", input: { ms: 600_000 } })
    expect(result).toMatchObject({ status: "error", kind: "failure" })
    if (result.status === "error") {
      expect(result.error).toContain(
        'fx_slow timed out: MCP server "fx" sent no result and no progress for 300 ms',
      )
      expect(result.error).toContain('raise "timeout"')
    }
    await until(
      async () => (await events(s.log)).includes("cancelled slow"),
      "the server to see the cancellation",
    )
  })

  it("aborting a call sends the cancellation to the server and ends the call interrupted", async () => {
    const s = await setup((log) => ({ fx: local({}, { FIXTURE_LOG: log }) }))
    const abort = new AbortController()
    const call = s.toolbelt.call({ tool: "fx_slow", input: { ms: 20_000 }, abort: abort.signal })
    await until(async () => (await events(s.log)).includes("started slow"), "the call to reach the server")
    abort.abort()
    const result = await call
    expect(result).toMatchObject({ status: "error", kind: "interrupted", metadata: { interrupted: true } })
    await until(
      async () => (await events(s.log)).includes("cancelled slow"),
      "the server to see the cancellation",
    )
  })
})

describe("drift pinning", () => {
  afterEach(teardown)

  // `mcp_drift: ask` is what the agent defaults should say (see the README section); the build
  // agent's `*: allow` would otherwise let a changed tool through without asking.
  const permission = { mcp_drift: "ask" }

  it("a tool whose description changed asks again before it runs; denied, it does not run", async () => {
    let answer: Reply = "reject"
    const s = await setup((log) => ({ fx: local({}, { FIXTURE_LOG: log }) }), {
      permission,
      decide: () => answer,
    })
    const pins = new McpPins(internals(s.toolbelt).store.db)

    // First approval pins the definition; nobody is asked (the rules allow the tool).
    expect(pins.get({ projectID: s.toolbelt.directory, server: "fx", tool: "echo" })).toBeUndefined()
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "one" } })).toMatchObject({
      status: "completed",
    })
    const first = pins.get({ projectID: s.toolbelt.directory, server: "fx", tool: "echo" })!
    expect(first.fingerprint).toMatch(/^[0-9a-f]{64}$/)
    expect(first.definition).toMatchObject({ name: "echo", description: "Echoes the text back." })
    expect(s.asks).toEqual([])

    // The same server again: same definition, still no ask.
    await s.mcp.close()
    const same = await connectMcpServers({
      config: { fx: local({}, { FIXTURE_LOG: s.log }) },
      registry: internals(s.toolbelt).registry,
      store: internals(s.toolbelt).store,
      directory: s.dir,
    })
    opened.push({ dir: s.dir, toolbelt: s.toolbelt, mcp: same })
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "two" } })).toMatchObject({
      status: "completed",
    })
    expect(s.asks).toEqual([])

    // Restarted with a changed description: asks `mcp_drift`; rejected, the server never sees it.
    await same.close()
    const changed = await connectMcpServers({
      config: { fx: local({}, { FIXTURE_LOG: s.log, FIXTURE_VARIANT: "v2" }) },
      registry: internals(s.toolbelt).registry,
      store: internals(s.toolbelt).store,
      directory: s.dir,
    })
    opened.push({ dir: s.dir, toolbelt: s.toolbelt, mcp: changed })
    const rejected = await s.toolbelt.call({ tool: "fx_echo", input: { text: "three" } })
    expect(rejected).toMatchObject({ status: "error", kind: "permission" })
    expect(s.asks).toHaveLength(1)
    expect(s.asks[0]).toMatchObject({
      permission: "mcp_drift",
      patterns: ["fx_echo"],
      always: [],
      metadata: {
        reason: "drift",
        server: "fx",
        tool: "echo",
        old: first.fingerprint,
        changed: ["description"],
        before: { description: "Echoes the text back." },
        after: { description: expect.stringContaining("id_rsa") },
      },
    })
    expect(await events(s.log)).toEqual(["echo one", "echo two"])
    expect(pins.get({ projectID: s.toolbelt.directory, server: "fx", tool: "echo" })!.fingerprint).toBe(
      first.fingerprint,
    )

    // Approved: it runs, the new definition is pinned, and the next call does not ask.
    answer = "once"
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "four" } })).toMatchObject({
      status: "completed",
    })
    const second = pins.get({ projectID: s.toolbelt.directory, server: "fx", tool: "echo" })!
    expect(second.fingerprint).not.toBe(first.fingerprint)
    expect(s.asks[1]).toMatchObject({ metadata: { new: second.fingerprint } })
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "five" } })).toMatchObject({
      status: "completed",
    })
    expect(s.asks).toHaveLength(2)
    expect(await events(s.log)).toEqual(["echo one", "echo two", "echo four", "echo five"])
  })

  it("a configured mcp_drift deny blocks a changed tool without asking", async () => {
    const s = await setup((log) => ({ fx: local({}, { FIXTURE_LOG: log }) }), {
      permission: { mcp_drift: "deny" },
    })
    const pins = new McpPins(internals(s.toolbelt).store.db)
    pins.pin({
      projectID: s.toolbelt.directory,
      server: "fx",
      tool: "echo",
      fingerprint: "0".repeat(64),
      definition: { name: "echo", description: "old" },
    })
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "x" } })).toMatchObject({
      status: "error",
      kind: "permission",
    })
    expect(s.asks).toEqual([])
    expect(await events(s.log)).toEqual([])
  })
})

describe("servers that fail or stop", () => {
  afterEach(teardown)

  it("a server that cannot start is reported while the others connect", async () => {
    const s = await setup(() => ({
      missing: { type: "local", command: ["/nonexistent/mcp-server"] },
      crashing: {
        type: "local",
        command: [process.execPath, "-e", "console.error('missing API key'); process.exit(2)"],
      },
      invalid: { type: "local", command: "not-a-list" },
      off: { ...local(), enabled: false },
      fx: local(),
    }))
    const [missing, crashing, invalid, off, fx] = s.mcp.servers
    expect(missing).toMatchObject({ name: "missing", status: "failed", tools: [] })
    expect(missing!.error).toContain("ENOENT")
    expect(crashing).toMatchObject({ name: "crashing", status: "failed", tools: [] })
    expect(crashing!.error).toContain("missing API key")
    expect(invalid).toMatchObject({ name: "invalid", status: "failed", tools: [] })
    expect(invalid!.error).toContain('MCP server "invalid"')
    expect(invalid!.error).toContain('"command" must be a non-empty list')
    expect(off).toEqual({ name: "off", status: "disabled", tools: [] })
    expect(fx).toMatchObject({ name: "fx", status: "connected" })
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "ok" } })).toMatchObject({
      status: "completed",
    })
    expect(s.logs.filter((line) => line.startsWith("error"))).toEqual([
      expect.stringContaining('MCP server "invalid"'),
      expect.stringContaining("MCP server missing: could not connect"),
      expect.stringContaining("MCP server crashing: could not connect"),
    ])
  })

  it("a server that dies mid-session is reported and its tools are withdrawn", async () => {
    const s = await setup((log) => ({ fx: local({}, { FIXTURE_LOG: log }) }))
    expect(internals(s.toolbelt).registry.resolve("fx_echo")).toBeDefined()
    const inFlight = s.toolbelt.call({ tool: "fx_slow", input: { ms: 20_000 } })
    await until(async () => (await events(s.log)).includes("started slow"), "the slow call to start")
    expect(await s.toolbelt.call({ tool: "fx_exit", input: {} })).toMatchObject({ output: "bye" })
    expect(await inFlight).toMatchObject({
      status: "error",
      kind: "failure",
      error:
        'MCP server "fx" disconnected before fx_slow finished; what it did is unknown. Check before you call it again.',
    })
    await until(() => s.mcp.servers[0]!.status === "failed", "the server to be reported failed")
    expect(s.mcp.servers[0]).toMatchObject({ status: "failed", tools: [] })
    expect(s.mcp.servers[0]!.error).toContain("the connection closed")
    expect(s.logs).toContainEqual(expect.stringMatching(/^error MCP server fx: the connection closed/))
    expect(internals(s.toolbelt).registry.resolve("fx_echo")).toBeUndefined()
    expect(await s.toolbelt.call({ tool: "fx_echo", input: { text: "x" } })).toMatchObject({
      status: "error",
      kind: "unknown",
    })
  })

  it("a remote server that goes away is reported and its tools are withdrawn", async () => {
    const http = await serve("http")
    const s = await setup(() => ({ fx: { type: "remote", url: http.url } }))
    expect(s.mcp.servers[0]).toMatchObject({ status: "connected" })
    http.child.kill("SIGKILL")
    await until(() => s.mcp.servers[0]!.status === "failed", "the server to be reported failed")
    expect(s.mcp.servers[0]!.error).toContain("it stopped answering")
    expect(internals(s.toolbelt).registry.resolve("fx_echo")).toBeUndefined()
  })

  it("falls back to the legacy SSE transport for an older remote server", async () => {
    const sse = await serve("sse")
    const s = await setup(() => ({ old: { type: "remote", url: sse.url, headers: { "x-api-key": "k" } } }))
    expect(s.mcp.servers[0]).toMatchObject({ name: "old", status: "connected", transport: "sse" })
    expect(await s.toolbelt.call({ tool: "old_echo", input: { text: "sse" } })).toMatchObject({
      status: "completed",
      output: "echo: sse",
    })
  })

  it("a remote server nobody answers at is reported with both attempts", async () => {
    const port = await closedPort()
    const s = await setup(() => ({
      gone: { type: "remote", url: `http://127.0.0.1:${port}/mcp`, connect_timeout: 5_000 },
    }))
    expect(s.mcp.servers[0]).toMatchObject({ name: "gone", status: "failed" })
    expect(s.mcp.servers[0]!.error).toContain("Streamable HTTP failed")
    expect(s.mcp.servers[0]!.error).toContain("legacy SSE")
  })
})

describe("names", () => {
  afterEach(teardown)

  it("an MCP tool never replaces a tool registered by someone else", async () => {
    const s = await setup(() => ({ apply: local({}, { FIXTURE_EXTRA: "patch" }) }))
    expect(internals(s.toolbelt).registry.resolve("apply_patch")!.source).toBe("builtin")
    expect(s.mcp.servers[0]!.tools).not.toContain("apply_patch")
    expect(s.mcp.servers[0]!.tools).toContain("apply_echo")
    expect(s.logs).toContainEqual(
      expect.stringContaining("tool patch is not registered: apply_patch is already registered by builtin"),
    )
  })

  it("two servers whose names would collide: one keeps the name, the other is told", async () => {
    const s = await setup(() => ({ a: local({}, { FIXTURE_EXTRA: "b_echo" }), a_b: local() }))
    const owners = s.mcp.servers.filter((server) => server.tools.includes("a_b_echo"))
    expect(owners).toHaveLength(1)
    expect(s.logs).toContainEqual(expect.stringMatching(/a_b_echo is already registered by mcp:a(_b)?$/))
    const result = await s.toolbelt.call({ tool: "a_b_echo", input: { text: "t" } })
    expect(result.status).toBe("completed")
  })

  it("two servers whose names sanitise alike are refused", async () => {
    const s = await setup(() => ({ "my.server": local(), my_server: local() }))
    expect(s.mcp.servers[0]).toMatchObject({ name: "my.server", status: "connected" })
    expect(s.mcp.servers[1]).toMatchObject({ name: "my_server", status: "failed" })
    expect(s.mcp.servers[1]!.error).toContain('like those of "my.server"')
  })
})

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
