// Protocol errors and edges, spoken by hand over real HTTP and real stdio, and with the SDK client.
import { stat } from "node:fs/promises"
import { join } from "node:path"
import type { ElicitRequestFormParams } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Answer,
  connectHttp,
  connectStdio,
  type HttpServer,
  makeProject,
  type Project,
  startHttp,
  textOf,
} from "./helpers.ts"
import {
  callTool,
  initialize,
  initialized,
  JSON_HEADERS,
  openSession,
  post,
  type StdioLines,
  stdioLines,
} from "./raw.ts"

const once: Answer = () => ({ action: "accept", content: { decision: "once" } })

let project: Project
let server: HttpServer

beforeAll(async () => {
  project = await makeProject()
  server = await startHttp(project)
})

afterAll(async () => {
  expect(await server?.stop()).toBe(0)
  await project?.remove()
})

describe("MCP over HTTP: what is not JSON-RPC", () => {
  it("answers JSON that is not JSON-RPC with -32600 Invalid Request", async () => {
    const answer = await post(server.url, { hello: 1 })
    expect(answer.status).toBe(400)
    expect(answer.messages[0]).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
  })

  it("answers it with -32600 inside a session too, with the request's id", async () => {
    const session = await openSession(server.url, "2025-11-25")
    const answer = await post(server.url, { id: 7, method: "ping" }, session)
    expect(answer.status).toBe(400)
    expect(answer.messages[0]).toMatchObject({ id: 7, error: { code: -32600 } })
  })

  it("answers text that is not JSON with -32700 Parse error", async () => {
    const answer = await post(server.url, "{nope")
    expect(answer.status).toBe(400)
    expect(answer.messages[0]).toMatchObject({ error: { code: -32700 } })
  })
})

describe("MCP over HTTP: batches", () => {
  it("answers a batch under 2025-03-26, every request of it", async () => {
    const session = await openSession(server.url, "2025-03-26")
    const answer = await post(
      server.url,
      [
        { jsonrpc: "2.0", id: 2, method: "ping" },
        initialized,
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
      ],
      session,
    )
    expect(answer.status).toBe(200)
    const byId = new Map(answer.messages.map((message) => [message.id, message]))
    expect(byId.get(2)).toMatchObject({ result: {} })
    expect(byId.get(3)).toMatchObject({ result: { tools: expect.any(Array) } })
  })

  it.each(["2025-06-18", "2025-11-25"])(
    "refuses a batch under %s with an error that says why",
    async (version) => {
      const session = await openSession(server.url, version)
      const answer = await post(server.url, [{ jsonrpc: "2.0", id: 2, method: "ping" }], session)
      expect(answer.status).toBe(400)
      expect(answer.messages[0]).toMatchObject({ error: { code: -32600 } })
      expect(JSON.stringify(answer.messages[0])).toContain(
        `only in MCP revision 2025-03-26 and this connection uses ${version}`,
      )
    },
  )
})

describe("MCP over HTTP: version negotiation", () => {
  it.each(["2024-10-07", "1999-01-01"])(
    "answers an initialize for %s with the newest revision",
    async (version) => {
      const answer = await post(server.url, initialize(version))
      expect(answer.messages[0]).toMatchObject({ result: { protocolVersion: "2025-11-25" } })
    },
  )
})

describe("MCP over HTTP: cancellation", () => {
  it("ends the response stream of a cancelled request", async () => {
    const session = await openSession(server.url, "2025-11-25")
    const response = await fetch(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...session },
      body: JSON.stringify(callTool(5, "bash", { command: "sleep 41.5926", description: "wait" })),
    })
    expect(response.status).toBe(200)
    const cancel = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5, reason: "test" },
    }
    expect((await post(server.url, cancel, session)).status).toBe(202)
    // The stream ends (no response follows a cancellation): reading it to its end returns.
    const text = await response.text()
    expect(text).not.toContain('"id":5')
  })
})

describe("MCP over HTTP: request size", () => {
  it("writes a 5 MB file with the default limit", async () => {
    const client = await connectHttp(server.url)
    try {
      const content = `${"x".repeat(99)}\n`.repeat(50_000)
      const result = await client.client.callTool({
        name: "write",
        arguments: { filePath: join(project.dir, "big.txt"), content },
      })
      expect(result.isError, textOf(result)).toBeFalsy()
      expect((await stat(join(project.dir, "big.txt"))).size).toBe(5_000_000)
    } finally {
      await client.close()
    }
  })

  it("answers a body over the limit with 413 and a JSON-RPC error that says the limit and how to raise it", async () => {
    const small = await startHttp(project, ["--max-request-bytes", "2000"])
    try {
      const answer = await post(small.url, { ...initialize("2025-11-25"), padding: "x".repeat(3000) })
      expect(answer.status).toBe(413)
      const { error } = answer.messages[0] as { error: { message: string } }
      expect(error.message).toContain("over the limit of 2000 bytes")
      expect(error.message).toContain('{"mcp": {"max_request_bytes": N}}')
      expect(error.message).toContain("--max-request-bytes")
    } finally {
      await small.stop()
    }
  })
})

describe("MCP elicitation forms follow the negotiated revision", () => {
  const decision = (form: ElicitRequestFormParams | undefined) =>
    (form?.requestedSchema.properties as Record<string, Record<string, unknown>> | undefined)?.decision

  it("gives a 2025-06-18 client enum + enumNames, over HTTP and stdio", async () => {
    const http = await connectHttp(server.url, { versions: ["2025-06-18"], answer: once })
    const stdio = await connectStdio(project, { versions: ["2025-06-18"], answer: once })
    try {
      for (const client of [http, stdio]) {
        const result = await client.client.callTool({ name: "reach", arguments: { path: "/srv/legacy/*" } })
        expect(textOf(result)).toBe("reached /srv/legacy/*")
        expect(decision(client.asked[0])).toMatchObject({
          enum: ["once", "always", "reject"],
          enumNames: ["Allow once", expect.stringMatching(/^Always allow/), "Reject"],
        })
        expect(decision(client.asked[0])).not.toHaveProperty("oneOf")
      }
    } finally {
      await http.close()
      await stdio.close()
    }
  })

  it("gives a 2025-11-25 client titled enums", async () => {
    const client = await connectHttp(server.url, { versions: ["2025-11-25"], answer: once })
    try {
      await client.client.callTool({ name: "reach", arguments: { path: "/srv/titled/*" } })
      expect(decision(client.asked[0])).toMatchObject({
        oneOf: expect.arrayContaining([{ const: "once", title: "Allow once" }]),
      })
      expect(decision(client.asked[0])).not.toHaveProperty("enumNames")
    } finally {
      await client.close()
    }
  })
})

describe("MCP over stdio: every line is answered", () => {
  let stdio: StdioLines

  beforeAll(() => {
    stdio = stdioLines(project)
  })

  afterAll(async () => {
    await stdio?.stop()
  })

  it("answers a line that is not JSON with -32700 Parse error", async () => {
    stdio.send("this is not json")
    expect(await stdio.next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
  })

  it("answers JSON that is not JSON-RPC with -32600 Invalid Request", async () => {
    stdio.send({ hello: 1 })
    expect(await stdio.next()).toMatchObject({ id: null, error: { code: -32600 } })
  })

  it("answers an initialize for an unknown revision with the newest one", async () => {
    stdio.send(initialize("2024-10-07"))
    expect(await stdio.next()).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } })
    stdio.send(initialized)
  })

  it("refuses a batch under 2025-11-25, saying why", async () => {
    stdio.send([{ jsonrpc: "2.0", id: 2, method: "ping" }])
    const answer = await stdio.next()
    expect(answer).toMatchObject({ error: { code: -32600 } })
    expect(JSON.stringify(answer)).toContain("this connection uses 2025-11-25")
  })
})

describe("MCP over stdio under 2025-03-26: batches", () => {
  it("answers a batch with one array of its responses", async () => {
    const stdio = stdioLines(project)
    try {
      stdio.send(initialize("2025-03-26"))
      expect(await stdio.next()).toMatchObject({ id: 1, result: { protocolVersion: "2025-03-26" } })
      stdio.send(initialized)
      stdio.send([
        { jsonrpc: "2.0", id: 2, method: "ping" },
        initialized,
        callTool(3, "echo", { text: "in a batch" }),
      ])
      const answer = (await stdio.next()) as { id: number }[]
      expect(Array.isArray(answer)).toBe(true)
      expect(answer.map((response) => response.id).sort()).toEqual([2, 3])
      expect(JSON.stringify(answer)).toContain("in a batch")
    } finally {
      await stdio.stop()
    }
  })

  it("answers a batch without the request the client cancelled (the spec: no response to it)", async () => {
    const stdio = stdioLines(project)
    try {
      stdio.send(initialize("2025-03-26"))
      expect(await stdio.next()).toMatchObject({ id: 1, result: { protocolVersion: "2025-03-26" } })
      stdio.send(initialized)
      // `slow` runs until it is aborted: the batch would wait for it forever.
      stdio.send([callTool(2, "slow", {}), callTool(3, "echo", { text: "answered" })])
      stdio.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })
      const answer = (await stdio.next()) as { id: number }[]
      expect(answer.map((response) => response.id)).toEqual([3])
      expect(JSON.stringify(answer)).toContain("answered")
      // A request whose id is "notifications/cancelled"'s method name is no notification: it is answered.
      stdio.send({ jsonrpc: "2.0", id: 4, method: "notifications/cancelled", params: { requestId: 3 } })
      expect(await stdio.next()).toMatchObject({ id: 4 })
    } finally {
      await stdio.stop()
    }
  })
})
