// MCP clients of `toolbelt serve` (at /mcp): their calls show up in the API and on /events, and the
// asks and questions of a client that cannot show forms wait for an answer through the API (the page).
import { afterEach, describe, expect, it } from "vitest"
import { scripted, step, text, call as toolCall } from "../../src/adapters/ai/fixtures/mock-model.ts"
import { database } from "../../src/runtime/question/fixtures/questions.ts"
import { connectHttp } from "../mcp/helpers.ts"
import { api, authFor, EventClient, newSession, type Running, startServer, until } from "./helpers.ts"

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

function resultText(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content
  return content.map((part) => part.text ?? "").join("\n")
}

describe("MCP at /mcp", () => {
  it("a client's calls appear live, in a session named after it; its asks are answered through the API", async () => {
    running = await startServer()
    const { url } = running
    const events = await EventClient.open(url)
    const mcp = await connectHttp(`${url}/mcp`, { headers: authFor(url) })
    try {
      const tools = await mcp.client.listTools()
      expect(tools.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["read", "bash", "question"]),
      )

      const read = await mcp.client.callTool({ name: "read", arguments: { filePath: "hello.txt" } })
      expect(read.isError).toBeFalsy()
      const seen = await events.next(
        (event) =>
          event.type === "message.part.updated" &&
          event.properties.part.tool === "read" &&
          event.properties.part.state.status === "completed",
        "the MCP call on /events",
      )
      const sessionID = seen.properties.part.sessionID as string
      const listed = await api(url, "GET", "/api/sessions")
      expect(listed.body.find((session: { id: string }) => session.id === sessionID)).toMatchObject({
        title: "MCP: toolbelt-test",
        agent: "build",
      })

      // An ask: the client has no forms, so it waits for the page; once, then reject with a message.
      const outside = mcp.client.callTool({ name: "read", arguments: { filePath: "/etc/hostname" } })
      const ask = await until(
        async () => (await api(url, "GET", `/api/permissions?session=${sessionID}`)).body[0],
        "the ask",
      )
      expect(ask).toMatchObject({ permission: "external_directory", tool: { name: "read" } })
      await api(url, "POST", `/api/permissions/${ask.id}/reply`, { reply: "once" })
      expect((await outside).isError).toBeFalsy()

      const again = mcp.client.callTool({ name: "read", arguments: { filePath: "/etc/hosts" } })
      const second = await until(
        async () => (await api(url, "GET", `/api/permissions?session=${sessionID}`)).body[0],
        "the second ask",
      )
      await api(url, "POST", `/api/permissions/${second.id}/reply`, {
        reply: "reject",
        message: "Use the project's copy of the hosts file.",
      })
      const rejected = await again
      expect(rejected.isError).toBe(true)
      expect(resultText(rejected)).toContain("Use the project's copy of the hosts file.")

      // A question: the page answers it.
      const question = mcp.client.callTool({
        name: "question",
        arguments: {
          questions: [database],
        },
      })
      const asked = await until(
        async () => (await api(url, "GET", `/api/questions?session=${sessionID}`)).body[0],
        "the question",
      )
      await api(url, "POST", `/api/questions/${asked.id}/reply`, { answers: [["Redis"]] })
      const answered = await question
      expect(answered.isError).toBeFalsy()
      expect(resultText(answered)).toContain("Redis")
    } finally {
      await mcp.close()
      events.close()
    }
  })

  it('a configured "mcp.ask" wins over the page: "reject" answers at once', async () => {
    running = await startServer({ config: { mcp: { ask: "reject" } } })
    const mcp = await connectHttp(`${running.url}/mcp`, { headers: authFor(running.url) })
    try {
      const result = await mcp.client.callTool({ name: "read", arguments: { filePath: "/etc/hostname" } })
      expect(result.isError).toBe(true)
      expect(resultText(result)).toContain('"mcp.ask" is "reject"')
      expect((await api(running.url, "GET", "/api/permissions")).body).toEqual([])
    } finally {
      await mcp.close()
    }
  })
})

describe("agent turns", () => {
  it("streams a turn of the server's model as JSON lines: start, its calls' parts, its text, finish", async () => {
    const model = scripted([
      step(text("Reading it. "), toolCall("c1", "read", { filePath: "hello.txt" })),
      step(text("It says hello.")),
    ])
    running = await startServer({
      model: { model, providerID: "mock", modelID: "mock-model", spec: "mock/mock-model" },
    })
    const { url } = running
    expect((await api(url, "GET", "/api/info")).body.model).toBe("mock/mock-model")
    const session = await newSession(url, "A turn")
    const response = await fetch(`${url}/api/sessions/${session}/turns`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authFor(url) },
      body: JSON.stringify({ prompt: "What does hello.txt say?" }),
    })
    expect(response.headers.get("content-type")).toBe("application/x-ndjson")
    const lines = (await response.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; [key: string]: any })
    expect(lines[0]).toMatchObject({ type: "start", sessionID: session })
    const parts = lines.filter((line) => line.type === "part").map((line) => line.part.state.status)
    expect(parts.at(-1)).toBe("completed")
    expect(
      lines
        .filter((line) => line.type === "text")
        .map((line) => line.text)
        .join(""),
    ).toBe("Reading it. It says hello.")
    expect(lines.at(-1)).toMatchObject({ type: "finish", status: "finished", text: "It says hello." })
    const detail = await api(url, "GET", `/api/sessions/${session}`)
    expect(detail.body.parts.map((part: { tool: string }) => part.tool)).toEqual(["read"])
  })
})
