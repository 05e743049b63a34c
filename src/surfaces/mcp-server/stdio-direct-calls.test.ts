import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { PassThrough } from "node:stream"
import { McpServer } from "@modelcontextprotocol/server"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { serveMcpStdio } from "./stdio.ts"
import { DirectCalls } from "./stdio-direct-calls.ts"
import { StdioLineTransport } from "./stdio-lines.ts"

let dir: string
let toolbelt: Toolbelt
const cleanup: (() => Promise<unknown> | unknown)[] = []
/** What the `hold` tool saw: calls started, and aborted. */
let started: string[] = []
let aborted: string[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-direct-calls-"))
  await writeFile(join(dir, "notes.txt"), "first line\nsecond line\n")
  started = []
  aborted = []
  toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    sweep: false,
  })
  toolbelt.register({
    echo: Tool.make({
      description: "Echoes.",
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    }),
    fails: Tool.make({
      description: "Throws.",
      input: z.object({}),
      execute: () => {
        throw new Error("it broke, on purpose")
      },
    }),
    steps: Tool.make({
      description: "Reports progress, then answers.",
      input: z.object({}),
      execute: async (_input, ctx) => {
        for (const output of ["one\n", "one\ntwo\n"]) {
          ctx.metadata({ title: "steps", metadata: { output } })
          await new Promise((resolve) => setTimeout(resolve, 120))
        }
        return "done"
      },
    }),
    asker: Tool.make({
      description: "Asks first.",
      input: z.object({}),
      execute: async (_input, ctx) => {
        await ctx.ask({ permission: "external_directory", patterns: ["/srv/*"] })
        return "asked and allowed"
      },
    }),
    hold: Tool.make({
      description: "Runs until aborted.",
      input: z.object({ name: z.string() }),
      execute: async ({ name }, ctx) => {
        started.push(name)
        await new Promise<void>((resolve) => ctx.abort.addEventListener("abort", () => resolve()))
        aborted.push(name)
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

interface LineServer {
  send(message: unknown): void
  /** The next line written whose JSON has this id (a response, or a request of the server). */
  next(
    match: (message: Record<string, unknown>) => boolean,
  ): Promise<{ line: string; message: Record<string, unknown> }>
  /** Every line written so far. */
  readonly lines: string[]
  /** Messages the direct path took. */
  readonly taken: unknown[]
}

/** `toolbelt mcp` over a pair of in-memory streams, spoken to line by line, initialized as a 2025-era client. */
async function lineServer(directCalls: boolean, capabilities: object = {}): Promise<LineServer> {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const wire = new StdioLineTransport(stdin, stdout)
  const served = serveMcpStdio({ toolbelt, transport: wire, directCalls })
  cleanup.push(() => served.close())
  const lines: string[] = []
  const waiters: { match: (message: Record<string, unknown>) => boolean; resolve: (line: string) => void }[] =
    []
  createInterface({ input: stdout }).on("line", (line) => {
    lines.push(line)
    const message = JSON.parse(line) as Record<string, unknown>
    const index = waiters.findIndex((waiter) => waiter.match(message))
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(line)
  })
  const taken: unknown[] = []
  const server: LineServer = {
    send: (message) => stdin.write(`${JSON.stringify(message)}\n`),
    next: async (match) => {
      const seen = lines.find((line) => match(JSON.parse(line)))
      const line = seen ?? (await new Promise<string>((resolve) => waiters.push({ match, resolve })))
      return { line, message: JSON.parse(line) }
    },
    lines,
    taken,
  }
  server.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "lines", version: "1" } },
  })
  await server.next((message) => message.id === 0)
  server.send({ jsonrpc: "2.0", method: "notifications/initialized" })
  const take = wire.take
  if (take) {
    wire.take = (message) => {
      const took = take(message)
      if (took) taken.push(message)
      return took
    }
  }
  return server
}

const byId = (id: unknown) => (message: Record<string, unknown>) =>
  message.id === id && !("method" in message)

function call(id: number | string, name: string, args?: object, extra: object = {}) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, ...(args ? { arguments: args } : {}), ...extra },
  }
}

describe("DirectCalls: tool calls over stdio without the SDK's dispatch", () => {
  it("answers byte for byte as the SDK's dispatch does, and leaves to the SDK what it does not take", async () => {
    const calls = [
      call(1, "echo", { text: "hello" }),
      call("two", "echo", { text: 'a "quoted" line\nand a second' }),
      call(3, "fails", {}),
      call(4, "echo", {}),
      call(5, "echo"),
      call(6, "read", { filePath: join(dir, "notes.txt") }),
      call(7, "read", { filePath: join(dir, "missing.txt") }),
      call(8, "nonexistent", {}),
      call(9, "echo", { text: "meta" }, { _meta: { "example.com/trace": "x" } }),
      call(10, "echo", { text: "extra" }, { task: { ttl: 1000 } }),
      call(11, "echo", "not an object" as unknown as object),
      { jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: 12 } },
      call(13, "steps", {}, { _meta: { progressToken: "p13" } }),
    ]
    const answers: Record<string, string[]> = {}
    const taken: Record<string, unknown[]> = {}
    for (const direct of [true, false]) {
      const server = await lineServer(direct)
      const lines: string[] = []
      for (const message of calls) {
        server.send(message)
        lines.push((await server.next(byId(message.id))).line)
      }
      // The progress of the last call, in the order it came.
      lines.push(...server.lines.filter((line) => line.includes('"notifications/progress"')))
      answers[String(direct)] = lines
      taken[String(direct)] = server.taken
    }
    expect(answers.true).toEqual(answers.false)
    expect(answers.true!.filter((line) => line.includes("notifications/progress")).length).toBeGreaterThan(0)
    expect(JSON.parse(answers.true![5]!).result.content[0].text).toContain("second line")
    // Taken: the plain calls of known tools; left: unknown tools, other params, malformed ones.
    expect((taken.true as { id: unknown }[]).map((message) => message.id)).toEqual([
      1,
      "two",
      3,
      4,
      5,
      6,
      7,
      13,
    ])
    expect(taken.false).toEqual([])
  })

  it.each([true, false])(
    "a cancelled call is aborted and gets no response; the next call is answered (%s)",
    async (direct) => {
      const server = await lineServer(direct)
      server.send(call(21, "hold", { name: "first" }))
      await until(() => started.includes("first"), "the call to start")
      expect(server.taken.length).toBe(direct ? 1 : 0)
      server.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 21, reason: "stop" },
      })
      await until(() => aborted.includes("first"), "the call to be aborted")
      server.send({
        jsonrpc: "2.0",
        id: 22,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "x" } },
      })
      await server.next(byId(22))
      // A response to 21 would have been written before 22's: the call settled first.
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(server.lines.some((line) => JSON.parse(line).id === 21)).toBe(false)
    },
  )

  it("asks through the client's form as the SDK's dispatch does (elicitation/create), and runs once allowed", async () => {
    const outcomes: Record<string, unknown> = {}
    for (const direct of [true, false]) {
      const server = await lineServer(direct, { elicitation: { form: {} } })
      server.send(call(31, "asker", {}))
      const { message: ask } = await server.next((message) => message.method === "elicitation/create")
      server.send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { decision: "once" } } })
      const { message } = await server.next(byId(31))
      outcomes[String(direct)] = { ask: (ask.params as { message: string }).message, result: message.result }
      expect(server.taken.length).toBe(direct ? 1 : 0)
    }
    expect(outcomes.true).toEqual(outcomes.false)
    expect(outcomes.true).toMatchObject({
      result: { content: [{ type: "text", text: "asked and allowed" }] },
    })
  })

  it("the end of the connection aborts the calls it took", async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const served = serveMcpStdio({ toolbelt, transport: new StdioLineTransport(stdin, stdout) })
    const lines = createInterface({ input: stdout })
    const answered = new Promise<void>((resolve) => lines.once("line", () => resolve()))
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } })}\n`,
    )
    await answered
    stdin.write(`${JSON.stringify(call(41, "hold", { name: "left" }))}\n`)
    await until(() => started.includes("left"), "the call to start")
    stdin.end()
    await served.closed
    await until(() => aborted.includes("left"), "the call to be aborted")
  })
})

describe("DirectCalls on its own", () => {
  const plain = (version: string | undefined) => {
    const sent: unknown[] = []
    const calls = new DirectCalls({
      server: new McpServer({ name: "t", version: "1" }).server,
      protocolVersion: () => version,
      tool: (name) =>
        name === "throws"
          ? async () => {
              throw new Error("the handler broke")
            }
          : undefined,
      send: async (message) => {
        sent.push(message)
      },
      onerror: () => {},
    })
    return { calls, sent }
  }

  it("answers a handler that throws with its message as a tool error, as the SDK does", async () => {
    const { calls, sent } = plain("2025-06-18")
    expect(calls.take(call(1, "throws", {}) as never)).toBe(true)
    await until(() => sent.length === 1, "the answer")
    expect(JSON.stringify(sent[0])).toBe(
      '{"result":{"content":[{"type":"text","text":"the handler broke"}],"isError":true},"jsonrpc":"2.0","id":1}',
    )
  })

  it("takes nothing before initialize, on a 2026-07-28 connection, or for a tool it is not given", () => {
    expect(plain(undefined).calls.take(call(1, "throws", {}) as never)).toBe(false)
    expect(plain("2026-07-28").calls.take(call(1, "throws", {}) as never)).toBe(false)
    expect(plain("2025-06-18").calls.take(call(1, "other", {}) as never)).toBe(false)
  })
})

async function until(predicate: () => boolean, what: string, timeoutMs = 10_000) {
  const start = Date.now()
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
