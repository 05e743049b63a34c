// The API of `toolbelt serve` over real HTTP on loopback: every endpoint, its bad inputs, and what a
// call through it really does (files read and written in a temp project, asks answered).
import { readFile } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { database } from "../../src/runtime/question/fixtures/questions.ts"
import { Session, Settlement } from "../../src/surfaces/http/schemas.ts"
import { api, authFor, EventClient, newSession, type Running, startServer, until } from "./helpers.ts"

let running: Running
let url: string

beforeAll(async () => {
  running = await startServer()
  url = running.url
})
afterAll(() => running.close())

/** Starts a call and waits until it asks; returns the ask and the call's reply to come. */
async function callThatAsks(session: string, input: unknown, tool = "read") {
  const reply = api(url, "POST", `/api/sessions/${session}/calls`, { tool, input })
  const ask = await until(async () => {
    const asks = (await api(url, "GET", `/api/permissions?session=${session}`)).body as any[]
    return asks[0]
  }, "the call's ask")
  return { ask, reply }
}

describe("server and tools", () => {
  it("GET /api/info names the project, the version and the event epoch; no model; a token needed", async () => {
    const info = await api(url, "GET", "/api/info")
    expect(info.status).toBe(200)
    expect(info.body).toMatchObject({
      directory: running.project.dir,
      model: null,
      auth: true,
      host: hostname(),
    })
    expect(info.body.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(info.body.epoch).toBe(running.server.events.epoch)
  })

  it("GET /api/tools lists the tools with their JSON Schemas, sorted; an unknown agent is a 400 naming the agents", async () => {
    const tools = await api(url, "GET", "/api/tools")
    expect(tools.status).toBe(200)
    const names = tools.body.map((tool: { name: string }) => tool.name)
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)))
    expect(names).toEqual(expect.arrayContaining(["read", "edit", "bash", "glob"]))
    const read = tools.body.find((tool: { name: string }) => tool.name === "read")
    expect(read.inputSchema.properties.filePath).toBeDefined()
    expect(read.source).toBe("builtin")

    const unknown = await api(url, "GET", "/api/tools?agent=nobody")
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toContain("nobody")
    expect(unknown.body.error).toContain("build")
  })
})

describe("sessions", () => {
  it("creates, lists most recent first with search and limit, and gets one with its calls", async () => {
    const created = await api(url, "POST", "/api/sessions", { title: "Rename the greeting" })
    expect(created.status).toBe(201)
    expect(Session.parse(created.body)).toMatchObject({ title: "Rename the greeting", agent: "build" })
    const other = await newSession(url, "Something else")

    const all = await api(url, "GET", "/api/sessions")
    const ids = all.body.map((session: { id: string }) => session.id)
    expect(ids).toContain(created.body.id)
    expect(ids.indexOf(other)).toBeLessThan(ids.indexOf(created.body.id))

    const found = await api(url, "GET", "/api/sessions?search=GREETING")
    expect(found.body.map((session: { id: string }) => session.id)).toEqual([created.body.id])
    expect((await api(url, "GET", `/api/sessions?search=${created.body.id.slice(-8)}`)).body).toHaveLength(1)
    expect((await api(url, "GET", "/api/sessions?limit=1")).body).toHaveLength(1)

    const detail = await api(url, "GET", `/api/sessions/${created.body.id}`)
    expect(detail.status).toBe(200)
    expect(detail.body).toEqual({
      session: created.body,
      parts: [],
      todos: [],
      permissions: [],
      questions: [],
    })
  })

  it("refuses what is not a session: unknown ids (404), bad ids, queries and bodies (400), non-JSON (415)", async () => {
    const missing = await api(url, "GET", "/api/sessions/ses_nope")
    expect(missing.status).toBe(404)
    expect(missing.body.error).toContain("POST /api/sessions")

    const badID = await api(url, "GET", "/api/sessions/bad%20id")
    expect(badID.status).toBe(400)
    expect(badID.body.issues[0].path).toBe("path.id")

    const badLimit = await api(url, "GET", "/api/sessions?limit=0")
    expect(badLimit.status).toBe(400)
    expect(badLimit.body.issues[0].path).toBe("query.limit")

    const extra = await api(url, "POST", "/api/sessions", { title: "x", color: "red" })
    expect(extra.status).toBe(400)
    expect(extra.body.error).toContain('Unrecognized key: "color"')

    const agent = await api(url, "POST", "/api/sessions", { agent: "nobody" })
    expect(agent.status).toBe(400)
    expect(agent.body.error).toContain("nobody")

    const notJson = await api(url, "POST", "/api/sessions", "{", { "content-type": "application/json" })
    expect(notJson.status).toBe(400)
    expect(notJson.body.error).toContain("not valid JSON")

    const empty = await api(url, "POST", "/api/sessions", "", { "content-type": "application/json" })
    expect(empty.status).toBe(400)
    expect(empty.body.error).toContain("empty")

    // A form post (what a page on another site could send without asking) is not JSON.
    const form = await fetch(`${url}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "text/plain", ...authFor(url) },
      body: '{"title":"x"}',
    })
    expect(form.status).toBe(415)
    expect(((await form.json()) as { error: string }).error).toContain("Content-Type: application/json")
  })
})

describe("calls", () => {
  it("runs a call through the pipeline: the file really changes, the settlement and part come back", async () => {
    const session = await newSession(url)
    const read = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "read",
      input: { filePath: "hello.txt" },
    })
    expect(read.status).toBe(200)
    const settled = Settlement.parse(read.body)
    expect(settled).toMatchObject({ status: "completed", title: "hello.txt" })
    expect(read.body.output).toContain("1: hello")
    expect(read.body.part).toMatchObject({ sessionID: session, tool: "read", state: { status: "completed" } })

    const edit = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "edit",
      input: { filePath: "hello.txt", oldString: "world", newString: "there" },
    })
    expect(edit.body.status).toBe("completed")
    expect(edit.body.metadata.diff).toContain("+there")
    expect(await readFile(join(running.project.dir, "hello.txt"), "utf8")).toBe("hello\nthere\n")

    const detail = await api(url, "GET", `/api/sessions/${session}`)
    expect(detail.body.parts.map((part: { tool: string }) => part.tool)).toEqual(["read", "edit"])
  })

  it("answers a tool's own error as a settlement, and refuses bad requests before anything runs", async () => {
    const session = await newSession(url)
    const unknown = await api(url, "POST", `/api/sessions/${session}/calls`, { tool: "nope", input: {} })
    expect(unknown.status).toBe(200)
    expect(unknown.body).toMatchObject({ status: "error", kind: "unknown" })

    const invalid = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "read",
      input: { filePath: 42 },
    })
    expect(invalid.body).toMatchObject({ status: "error", kind: "invalid" })

    const noSession = await api(url, "POST", "/api/sessions/ses_missing/calls", { tool: "read", input: {} })
    expect(noSession.status).toBe(404)
    const badName = await api(url, "POST", `/api/sessions/${session}/calls`, { tool: "rm -rf /" })
    expect(badName.status).toBe(400)
    expect(badName.body.issues[0].path).toBe("body.tool")
    const noTool = await api(url, "POST", `/api/sessions/${session}/calls`, { input: {} })
    expect(noTool.status).toBe(400)
    const badAgent = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "read",
      agent: "nobody",
    })
    expect(badAgent.status).toBe(400)
  })

  it("a call id makes a call idempotent: the second request is answered from the record, the command runs once", async () => {
    const session = await newSession(url)
    const body = {
      tool: "bash",
      input: { command: "echo ran >> runs.txt", description: "Count runs" },
      callID: "call_once",
    }
    const first = await api(url, "POST", `/api/sessions/${session}/calls`, body)
    const second = await api(url, "POST", `/api/sessions/${session}/calls`, body)
    expect(first.body.status).toBe("completed")
    expect(second.body.part.id).toBe(first.body.part.id)
    expect(await readFile(join(running.project.dir, "runs.txt"), "utf8")).toBe("ran\n")
  })

  it("closing the connection aborts the call and kills its command", async () => {
    const session = await newSession(url)
    const abort = new AbortController()
    const events = await EventClient.open(url, { query: `?session=${session}` })
    const call = fetch(`${url}/api/sessions/${session}/calls`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authFor(url) },
      body: JSON.stringify({ tool: "bash", input: { command: "sleep 30", description: "Wait" } }),
      signal: abort.signal,
    }).catch(() => undefined)
    await events.next(
      (event) => event.type === "message.part.updated" && event.properties.part.state.status === "running",
      "the call to run",
    )
    abort.abort()
    await call
    const ended = await events.next(
      (event) => event.type === "message.part.updated" && event.properties.part.state.status === "error",
      "the call to end",
    )
    expect(ended.properties.part.state.metadata.interrupted).toBe(true)
    events.close()
  })
})

describe("permission asks", () => {
  it("lists an ask with exactly what always saves; once lets the call go on", async () => {
    const session = await newSession(url)
    const { ask, reply } = await callThatAsks(session, { filePath: "/etc/hostname" })
    expect(ask).toMatchObject({
      sessionID: session,
      permission: "external_directory",
      patterns: ["/etc/*"],
      always: ["/etc/*"],
      tool: { name: "read" },
    })
    expect(
      (await api(url, "GET", "/api/permissions")).body.map((pending: { id: string }) => pending.id),
    ).toContain(ask.id)
    expect((await api(url, "GET", `/api/sessions/${session}`)).body.permissions).toEqual([ask])

    const answered = await api(url, "POST", `/api/permissions/${ask.id}/reply`, { reply: "once" })
    expect(answered).toMatchObject({ status: 200, body: { requestID: ask.id, reply: "once" } })
    expect((await reply).body.status).toBe("completed")
    expect((await api(url, "GET", "/api/approvals")).body).toEqual([])

    const again = await api(url, "POST", `/api/permissions/${ask.id}/reply`, { reply: "once" })
    expect(again.status).toBe(404)
    expect(again.body.error).toContain("answered already")
  })

  it("reject with a message: the call fails and the message reaches the model", async () => {
    const session = await newSession(url)
    const { ask, reply } = await callThatAsks(session, { filePath: "/etc/hostname" })
    const answered = await api(url, "POST", `/api/permissions/${ask.id}/reply`, {
      reply: "reject",
      message: "Read the copy in the project instead.",
    })
    expect(answered.status).toBe(200)
    const settled = (await reply).body
    expect(settled).toMatchObject({ status: "error", kind: "permission" })
    expect(settled.error).toContain("Read the copy in the project instead.")
  })

  it("refuses replies that are not one: unknown reply, a message with once, extra keys", async () => {
    const session = await newSession(url)
    const { ask, reply } = await callThatAsks(session, { filePath: "/etc/hostname" })
    const bad = await api(url, "POST", `/api/permissions/${ask.id}/reply`, { reply: "maybe" })
    expect(bad.status).toBe(400)
    expect(bad.body.issues[0].path).toBe("body.reply")
    const message = await api(url, "POST", `/api/permissions/${ask.id}/reply`, {
      reply: "once",
      message: "hm",
    })
    expect(message.status).toBe(400)
    expect(message.body.error).toContain("a message goes with reject only")
    expect(
      (await api(url, "GET", "/api/permissions")).body.map((pending: { id: string }) => pending.id),
    ).toContain(ask.id)
    await api(url, "POST", `/api/permissions/${ask.id}/reply`, { reply: "reject" })
    expect((await reply).body.status).toBe("error")
  })

  it("always saves the ask's always list; revoking it makes the same call ask again", async () => {
    const session = await newSession(url)
    const first = await callThatAsks(session, { filePath: "/etc/hostname" })
    await api(url, "POST", `/api/permissions/${first.ask.id}/reply`, { reply: "always" })
    expect((await first.reply).body.status).toBe("completed")

    const approvals = await api(url, "GET", "/api/approvals")
    expect(approvals.body).toEqual([
      expect.objectContaining({
        permission: "external_directory",
        pattern: "/etc/*",
        projectID: running.project.dir,
      }),
    ])
    const allowed = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "read",
      input: { filePath: "/etc/hostname" },
    })
    expect(allowed.body.status).toBe("completed")

    const revoked = await api(url, "DELETE", `/api/approvals/${approvals.body[0].id}`)
    expect(revoked.status).toBe(204)
    expect((await api(url, "GET", "/api/approvals")).body).toEqual([])
    const gone = await api(url, "DELETE", `/api/approvals/${approvals.body[0].id}`)
    expect(gone.status).toBe(404)

    const second = await callThatAsks(session, { filePath: "/etc/hostname" })
    expect(second.ask.permission).toBe("external_directory")
    await api(url, "POST", `/api/permissions/${second.ask.id}/reply`, { reply: "reject" })
    await second.reply
  })
})

describe("questions, todos and the journal", () => {
  // Only its options may be picked, so an answer of one's own is refused.
  const questions = [{ ...database, custom: false }]

  /** Starts a call of the question tool and waits until its questions are pending. */
  async function callThatQuestions(session: string) {
    const reply = api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "question",
      input: { questions },
    })
    const asked = await until(
      async () => (await api(url, "GET", `/api/questions?session=${session}`)).body[0],
      "the question",
    )
    return { asked, reply }
  }

  it("a question waits for its answer; answers that do not fit are refused and it stays pending", async () => {
    const session = await newSession(url)
    const { asked, reply } = await callThatQuestions(session)
    expect(asked).toMatchObject({ sessionID: session, questions })
    expect((await api(url, "GET", `/api/sessions/${session}`)).body.questions).toEqual([asked])

    const stranger = await api(url, "POST", `/api/questions/${asked.id}/reply`, { answers: [["Postgres"]] })
    expect(stranger.status).toBe(400)
    expect(stranger.body.error).toContain("takes only its options")
    const shape = await api(url, "POST", `/api/questions/${asked.id}/reply`, { answers: "SQLite" })
    expect(shape.status).toBe(400)
    expect(shape.body.issues[0].path).toBe("body.answers")
    expect(
      (await api(url, "GET", "/api/questions")).body.map((request: { id: string }) => request.id),
    ).toContain(asked.id)

    const answered = await api(url, "POST", `/api/questions/${asked.id}/reply`, { answers: [["Redis"]] })
    expect(answered).toMatchObject({ status: 200, body: { requestID: asked.id, answers: [["Redis"]] } })
    const settled = (await reply).body
    expect(settled.status).toBe("completed")
    expect(settled.output).toContain("Redis")
    expect((await api(url, "POST", `/api/questions/${asked.id}/reply`, { answers: [] })).status).toBe(404)
  })

  it("dismissing a question fails its call", async () => {
    const session = await newSession(url)
    const { asked, reply } = await callThatQuestions(session)
    expect((await api(url, "POST", `/api/questions/${asked.id}/reject`)).status).toBe(200)
    expect((await reply).body.status).toBe("error")
    expect((await api(url, "POST", `/api/questions/${asked.id}/reject`)).status).toBe(404)
  })

  it("todos: written by a call, listed in order, streamed as todo.updated", async () => {
    const session = await newSession(url)
    const events = await EventClient.open(url, { query: `?session=${session}` })
    const todos = [
      { content: "Change the greeting", status: "in_progress", priority: "high" },
      { content: "Run the tests", status: "pending", priority: "medium" },
    ]
    const written = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "todowrite",
      input: { todos },
    })
    expect(written.body.status).toBe("completed")
    const listed = await api(url, "GET", `/api/sessions/${session}/todos`)
    expect(listed.body.map((todo: { content: string }) => todo.content)).toEqual([
      "Change the greeting",
      "Run the tests",
    ])
    const updated = await events.next((event) => event.type === "todo.updated", "todo.updated")
    expect(updated.properties.todos).toEqual(listed.body)
    events.close()
    expect((await api(url, "GET", "/api/sessions/ses_missing/todos")).status).toBe(404)
  })

  it("the journal: every step of every call in order, or of one call", async () => {
    const session = await newSession(url)
    const first = await api(url, "POST", `/api/sessions/${session}/calls`, {
      tool: "read",
      input: { filePath: "hello.txt" },
    })
    await api(url, "POST", `/api/sessions/${session}/calls`, { tool: "glob", input: { pattern: "*.txt" } })
    const journal = await api(url, "GET", `/api/sessions/${session}/journal`)
    expect(journal.status).toBe(200)
    const seqs = journal.body.map((entry: { seq: number }) => entry.seq)
    expect(seqs).toEqual([...seqs].sort((a: number, b: number) => a - b))
    expect(new Set(journal.body.map((entry: { callID: string }) => entry.callID)).size).toBe(2)
    const one = await api(url, "GET", `/api/sessions/${session}/journal?call=${first.body.part.callID}`)
    expect(one.body.map((entry: { kind: string }) => entry.kind)).toEqual([
      "requested",
      "started",
      "finished",
    ])
    expect((await api(url, "GET", "/api/sessions/ses_missing/journal")).status).toBe(404)
  })
})

describe("agent turns", () => {
  it("without a model, a turn is a 409 that says how to configure one", async () => {
    const session = await newSession(url)
    const turn = await api(url, "POST", `/api/sessions/${session}/turns`, { prompt: "hi" })
    expect(turn.status).toBe(409)
    expect(turn.body.error).toContain("--model provider/id")
    expect((await api(url, "POST", `/api/sessions/${session}/turns`, { prompt: "" })).status).toBe(400)
  })
})

describe("the OpenAPI document", () => {
  it("describes every route, with the same schemas that check the requests", async () => {
    const document = await api(url, "GET", "/openapi.json")
    expect(document.status).toBe(200)
    expect(document.body.openapi).toBe("3.1.0")
    const operations = Object.entries(document.body.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(operations.sort()).toEqual(
      [
        "GET /api/info",
        "POST /api/login",
        "GET /api/tools",
        "GET /api/tools/deferral",
        "GET /api/sessions",
        "POST /api/sessions",
        "GET /api/sessions/{id}",
        "POST /api/sessions/{id}/calls",
        "POST /api/sessions/{id}/calls/{callID}/abort",
        "GET /api/outputs/{id}",
        "POST /api/sessions/{id}/turns",
        "GET /api/sessions/{id}/messages",
        "GET /api/sessions/{id}/todos",
        "GET /api/sessions/{id}/journal",
        "GET /api/permissions",
        "POST /api/permissions/{id}/reply",
        "GET /api/questions",
        "POST /api/questions/{id}/reply",
        "POST /api/questions/{id}/reject",
        "GET /api/approvals",
        "DELETE /api/approvals/{id}",
        "GET /events",
      ].sort(),
    )
    const reply = document.body.paths["/api/permissions/{id}/reply"].post
    expect(reply.parameters).toEqual([expect.objectContaining({ name: "id", in: "path", required: true })])
    expect(reply.requestBody.content["application/json"].schema.properties.reply.enum).toEqual([
      "once",
      "always",
      "reject",
    ])
    const list = document.body.paths["/api/sessions"].get
    expect(list.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      "search",
      "host",
      "project",
      "limit",
    ])
    expect(list.responses["200"].content["application/json"].schema.type).toBe("array")
    expect(document.body.paths["/events"].get.responses["200"].content).toHaveProperty(["text/event-stream"])
    // The schema of a response is what the API really gives.
    const session = await api(url, "POST", "/api/sessions", {})
    expect(() =>
      z
        .fromJSONSchema(
          document.body.paths["/api/sessions"].post.responses["201"].content["application/json"].schema,
        )
        .parse(session.body),
    ).not.toThrow()
  })

  it("unknown paths are a 404 that points at the document", async () => {
    const missing = await api(url, "GET", "/api/nothing")
    expect(missing.status).toBe(404)
    expect(missing.body.error).toContain("/openapi.json")
  })
})
