// `toolbelt mcp --http` as a real subprocess, driven with the official MCP client over streamable HTTP.
import { existsSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { request } from "node:http"
import { join } from "node:path"
import type { ElicitResult, Progress } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Answer,
  authFor,
  type Connected,
  connectHttp,
  expectCancelledSleepKilled,
  type HttpServer,
  makeProject,
  type Project,
  startHttp,
  textOf,
  until,
} from "./helpers.ts"

const once: Answer = () => ({ action: "accept", content: { decision: "once" } })
const decline: Answer = () => ({ action: "decline" })

describe("toolbelt mcp --http", () => {
  let project: Project
  let server: HttpServer
  let client: Connected
  const answers: Answer[] = []

  beforeAll(async () => {
    project = await makeProject()
    await writeFile(join(project.dir, "shared.txt"), "one\ntwo\n")
    server = await startHttp(project)
    client = await connectHttp(server.url, {
      answer: (params) => (answers.shift() ?? decline)(params) as ElicitResult,
    })
  })

  afterAll(async () => {
    await client?.close()
    expect(await server?.stop()).toBe(0)
    await project?.remove()
  })

  it("listens on loopback and prints the endpoint", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
  })

  it("lists the tools with their schemas, without `invalid`", async () => {
    const tools = (await client.client.listTools()).tools
    const names = tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["echo", "reach", "hold", "steps"]))
    expect(names).not.toContain("invalid")
    expect(tools.find((tool) => tool.name === "reach")?.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    })
  })

  it("calls a tool", async () => {
    const result = await client.client.callTool({ name: "echo", arguments: { text: "over http" } })
    expect(result.content).toEqual([{ type: "text", text: "over http" }])
  })

  it("answers invalid input with isError and the validation message", async () => {
    const result = await client.client.callTool({ name: "echo", arguments: { text: ["no"] } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(
      "The echo tool was called with invalid arguments: text: Invalid input: expected string, received array.\nPlease rewrite the input so it satisfies the expected schema.",
    )
  })

  it("asks through elicitation: approved", async () => {
    answers.push(once)
    const result = await client.client.callTool({ name: "reach", arguments: { path: "/srv/http/*" } })
    expect(textOf(result)).toBe("reached /srv/http/*")
    expect(client.asked.at(-1)?.message).toContain("/srv/http/*")
  })

  it("asks through elicitation: declined", async () => {
    answers.push(decline)
    const result = await client.client.callTool({ name: "reach", arguments: { path: "/srv/http-no/*" } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe("The user rejected permission to use this specific tool call.")
  })

  it("falls back to the config for a client without elicitation", async () => {
    const plain = await connectHttp(server.url)
    try {
      const result = await plain.client.callTool({ name: "reach", arguments: { path: "/srv/plain/*" } })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain('{"permission":{"external_directory":{"/srv/plain/*":"allow"}}}')
    } finally {
      await plain.close()
    }
  })

  it("aborts the running call when the client cancels it", async () => {
    const abort = new AbortController()
    const call = client.client.callTool(
      { name: "hold", arguments: { marker: "http" } },
      { signal: abort.signal },
    )
    await until(() => server.stderr().includes("hold http started"), "the call to start")
    abort.abort()
    await expect(call).rejects.toThrow()
    await until(() => existsSync(join(project.dir, "http.aborted")), "the tool to see the abort")
  })

  it("streams progress", async () => {
    const progress: Progress[] = []
    const result = await client.client.callTool(
      { name: "steps", arguments: { n: 4, ms: 80 } },
      { onprogress: (update) => progress.push(update) },
    )
    expect(textOf(result)).toBe("done")
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress.at(-1)?.message).toMatch(/^stepping: step \d of 4$/)
  })

  it("serves concurrent clients, each in its own session", async () => {
    const [a, b] = await Promise.all([connectHttp(server.url), connectHttp(server.url)])
    try {
      const [holdA, holdB] = [
        a.client.callTool({ name: "steps", arguments: { n: 3, ms: 50 } }),
        b.client.callTool({ name: "steps", arguments: { n: 3, ms: 50 } }),
      ]
      const [whoA, whoB, whoA2] = await Promise.all([
        a.client.callTool({ name: "whoami", arguments: {} }),
        b.client.callTool({ name: "whoami", arguments: {} }),
        a.client.callTool({ name: "whoami", arguments: {} }),
      ])
      expect(textOf(whoA)).toMatch(/^ses_/)
      expect(textOf(whoA2)).toBe(textOf(whoA))
      expect(textOf(whoB)).not.toBe(textOf(whoA))
      expect(textOf(await holdA)).toBe("done")
      expect(textOf(await holdB)).toBe("done")
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it("keeps each client's read ledger: one that did not read the file may not overwrite it", async () => {
    const [a, b] = await Promise.all([connectHttp(server.url), connectHttp(server.url)])
    try {
      const read = await a.client.callTool({ name: "read", arguments: { filePath: "shared.txt" } })
      expect(textOf(read)).toContain("two")
      const refused = await b.client.callTool({
        name: "write",
        arguments: { filePath: "shared.txt", content: "from b\n" },
      })
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toMatch(/^You must read the file .*shared\.txt before overwriting it/)
      const written = await a.client.callTool({
        name: "write",
        arguments: { filePath: "shared.txt", content: "from a\n" },
      })
      expect(written.isError, textOf(written)).toBeFalsy()
      expect(await readFile(join(project.dir, "shared.txt"), "utf8")).toBe("from a\n")
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it("reads and edits a file", async () => {
    await writeFile(join(project.dir, "edit-me.txt"), "red\ngreen\n")
    await client.client.callTool({ name: "read", arguments: { filePath: "edit-me.txt" } })
    const result = await client.client.callTool({
      name: "edit",
      arguments: { filePath: "edit-me.txt", oldString: "green", newString: "blue" },
    })
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(await readFile(join(project.dir, "edit-me.txt"), "utf8")).toBe("red\nblue\n")
  })

  it("searches with grep", async () => {
    const result = await client.client.callTool({ name: "grep", arguments: { pattern: "two" } })
    expect(result.isError, textOf(result)).toBeFalsy()
  })

  it("kills a cancelled `sleep`", () => expectCancelledSleepKilled(client.client, "27.1828"))

  it.each(["2025-11-25", "2025-06-18", "2025-03-26"])(
    "speaks %s to a client that offers only that",
    async (version) => {
      const older = await connectHttp(server.url, { versions: [version] })
      try {
        expect(older.client.getNegotiatedProtocolVersion()).toBe(version)
        expect(textOf(await older.client.callTool({ name: "echo", arguments: { text: version } }))).toBe(
          version,
        )
      } finally {
        await older.close()
      }
    },
  )

  it("lets a client that negotiates 2026-07-28 fall back to initialize", async () => {
    const modern = await connectHttp(server.url, { negotiation: "auto" })
    try {
      expect(modern.client.getProtocolEra()).toBe("legacy")
      expect(textOf(await modern.client.callTool({ name: "echo", arguments: { text: "fallback" } }))).toBe(
        "fallback",
      )
    } finally {
      await modern.close()
    }
  })

  it("refuses a Host header that is not this machine (DNS rebinding)", async () => {
    const answer = await raw(server.url, { host: "evil.example" })
    expect(answer.status).toBe(403)
    expect(answer.body).toContain("Invalid Host")
  })

  it("refuses a browser Origin from another site", async () => {
    const answer = await raw(server.url, { origin: "http://evil.example" })
    expect(answer.status).toBe(403)
    expect(answer.body).toContain("requests from http://evil.example are refused")
  })

  it("ends a session when the client deletes it", async () => {
    const leaving = await connectHttp(server.url)
    const id = leaving.sessionId
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(textOf(await leaving.client.callTool({ name: "echo", arguments: { text: "bye" } }))).toBe("bye")
    await leaving.close()
    expect((await raw(server.url, { "mcp-session-id": id! })).status).toBe(404)
  })

  it("answers a request of an unknown session with 404", async () => {
    const answer = await raw(server.url, { "mcp-session-id": "nope" })
    expect(answer.status).toBe(404)
  })
})

describe("toolbelt mcp --http with a token", () => {
  let project: Project
  let server: HttpServer

  beforeAll(async () => {
    project = await makeProject()
    server = await startHttp(project, [], { TOOLBELT_MCP_TOKEN: "s3cret" })
  })

  afterAll(async () => {
    await server?.stop()
    await project?.remove()
  })

  it("refuses requests without the token", async () => {
    await expect(connectHttp(server.url)).rejects.toThrow()
    const answer = await raw(server.url, {})
    expect(answer.status).toBe(401)
    expect(answer.body).toContain("Authorization: Bearer")
  })

  it("refuses a wrong token", async () => {
    const answer = await raw(server.url, { authorization: "Bearer nope" })
    expect(answer.status).toBe(401)
  })

  it("serves a client that sends it", async () => {
    const client = await connectHttp(server.url, { headers: { Authorization: "Bearer s3cret" } })
    try {
      expect(textOf(await client.client.callTool({ name: "echo", arguments: { text: "authorized" } }))).toBe(
        "authorized",
      )
    } finally {
      await client.close()
    }
  })

  it("binds beyond loopback only with a token", async () => {
    const wide = await startHttp(project, ["--host", "0.0.0.0", "--token", "other"])
    try {
      expect(wide.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/)
      const port = new URL(wide.url).port
      const client = await connectHttp(`http://127.0.0.1:${port}/mcp`, {
        headers: { Authorization: "Bearer other" },
      })
      expect(textOf(await client.client.callTool({ name: "echo", arguments: { text: "wide" } }))).toBe("wide")
      await client.close()
    } finally {
      expect(await wide.stop()).toBe(0)
    }
  })
})

/** An initialize POST with the given headers (node:http, which lets a test set Host). */
function raw(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  })
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...authFor(url),
          ...headers,
        },
      },
      (res) => {
        let text = ""
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString()
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on("error", reject)
    req.end(body)
  })
}
