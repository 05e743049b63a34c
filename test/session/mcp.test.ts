// The session tools served by `toolbelt mcp`, driven by the official MCP SDK client: each connection a
// session with its own todo list; questions asked through elicitation (answered, declined, and not
// offered to a client that cannot show forms); plan mode switching the listing.

import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/client"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { database, features } from "../../src/runtime/question/fixtures/questions.ts"
import { runCli } from "../fixtures/cli.ts"
import {
  type Answer,
  type ClientOptions,
  connectStdio,
  makeProject,
  type Project,
  type StdioConnected,
  textOf,
} from "../mcp/helpers.ts"

let project: Project
const open: StdioConnected[] = []

beforeEach(async () => {
  project = await makeProject()
})

afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close()
  await project.remove()
})

async function connect(options: ClientOptions = {}): Promise<StdioConnected> {
  const connection = await connectStdio(project, options)
  open.push(connection)
  return connection
}

/** A client that shows forms and answers them from a queue (a person at a client like Claude Desktop). */
function answering(): { answer: Answer; queue: ((form: ElicitRequestFormParams) => ElicitResult)[] } {
  const queue: ((form: ElicitRequestFormParams) => ElicitResult)[] = []
  return {
    queue,
    answer: (form) => {
      const next = queue.shift()
      if (!next) throw new Error(`no answer queued for: ${form.message}`)
      return next(form)
    },
  }
}

const names = async (connection: StdioConnected) =>
  (await connection.client.listTools()).tools.map((tool) => tool.name)

describe("todowrite and todoread over MCP", () => {
  it("each connection is a session with its own list", async () => {
    const first = await connect()
    const second = await connect()
    const todos = [{ content: "Ship it", status: "in_progress", priority: "high" }]
    const written = await first.client.callTool({ name: "todowrite", arguments: { todos } })
    expect(written.isError).toBeFalsy()
    expect(JSON.parse(textOf(written))).toEqual([{ id: "1", ...todos[0] }])
    expect(JSON.parse(textOf(await first.client.callTool({ name: "todoread", arguments: {} })))).toHaveLength(
      1,
    )
    expect(textOf(await second.client.callTool({ name: "todoread", arguments: {} }))).toBe("[]")
  })
})

describe("question over MCP", () => {
  it("is answered through an elicitation form: a choice, or several plus one's own answer", async () => {
    const person = answering()
    const connection = await connect({ answer: person.answer })
    expect(await names(connection)).toContain("question")

    person.queue.push(() => ({ action: "accept", content: { q1: "Redis" } }))
    const one = await connection.client.callTool({ name: "question", arguments: { questions: [database] } })
    expect(one.isError).toBeFalsy()
    expect(textOf(one)).toContain('"Which database should the cache use?"="Redis"')
    const form = connection.asked.at(-1)!
    expect(form.message).toContain("Database: Which database should the cache use?")
    expect(form.message).toContain("- SQLite: one file")
    expect(form.requestedSchema.properties.q1).toMatchObject({
      type: "string",
      oneOf: [
        { const: "SQLite", title: "SQLite" },
        { const: "Redis", title: "Redis" },
      ],
    })
    expect(form.requestedSchema.properties.q1_own).toMatchObject({ type: "string" })

    person.queue.push(() => ({
      action: "accept",
      content: { q1: ["Speed"], q1_own: "Cost", q2_own: "Postgres" },
    }))
    const two = await connection.client.callTool({
      name: "question",
      arguments: { questions: [features, database] },
    })
    expect(textOf(two)).toContain(
      '"Which features matter?"="Speed, Cost", "Which database should the cache use?"="Postgres"',
    )
    expect(connection.asked.at(-1)!.requestedSchema.properties.q1).toMatchObject({ type: "array" })
  })

  it("on a 2026-07-28 connection the form travels as input_required and comes back with the retry", async () => {
    const person = answering()
    const connection = await connect({ answer: person.answer, negotiation: "auto" })
    expect(connection.client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    person.queue.push(() => ({ action: "accept", content: { q1: "SQLite" } }))
    const result = await connection.client.callTool({
      name: "question",
      arguments: { questions: [database] },
    })
    expect(textOf(result)).toContain('"Which database should the cache use?"="SQLite"')
    expect(connection.asked).toHaveLength(1)
  })

  it("a batch's question is shown through the batch call", async () => {
    await project.remove()
    project = await makeProject({ batch: true })
    const person = answering()
    const connection = await connect({ answer: person.answer })
    person.queue.push(() => ({ action: "accept", content: { q1: "Redis" } }))
    const result = await connection.client.callTool({
      name: "batch",
      arguments: { tool_calls: [{ tool: "question", parameters: { questions: [database] } }] },
    })
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toContain('"Which database should the cache use?"="Redis"')
    expect(connection.asked).toHaveLength(1)
  })

  it("declining the form dismisses the questions: the call fails", async () => {
    const person = answering()
    const connection = await connect({ answer: person.answer })
    person.queue.push(() => ({ action: "decline" }))
    const result = await connection.client.callTool({
      name: "question",
      arguments: { questions: [database] },
    })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe("The user dismissed this question.")
  })

  it("is not offered to a client that cannot show forms", async () => {
    const connection = await connect()
    const tools = await names(connection)
    expect(tools).not.toContain("question")
    expect(tools).toEqual(expect.arrayContaining(["todowrite", "todoread", "plan_enter"]))
    await expect(
      connection.client.callTool({ name: "question", arguments: { questions: [database] } }),
    ).rejects.toThrow("Tool question disabled")
  })
})

describe("plan mode over MCP", () => {
  it("plan_enter switches the connection's session and its listing; plan_exit asks through a form", async () => {
    const person = answering()
    const connection = await connect({ answer: person.answer })
    expect(await names(connection)).not.toContain("plan_exit")

    const entered = await connection.client.callTool({ name: "plan_enter", arguments: {} })
    expect(textOf(entered)).toContain("Plan mode is on")
    const planning = await names(connection)
    expect(planning).toContain("plan_exit")
    expect(planning).not.toContain("plan_enter")

    const early = await connection.client.callTool({
      name: "write",
      arguments: { filePath: "app.ts", content: "x\n" },
    })
    expect(early.isError).toBe(true)
    const plan = "# Plan\n1. Add app.ts.\n"
    const planFile = /plan file: (\S+)\./.exec(textOf(entered))![1]!
    const wrote = await connection.client.callTool({
      name: "write",
      arguments: { filePath: planFile, content: plan },
    })
    expect(wrote.isError).toBeFalsy()

    person.queue.push((form) => {
      expect(form.message).toContain(`Plan at ${planFile} is complete.`)
      // Only Yes or No: nothing of one's own.
      expect(form.requestedSchema.properties.q1_own).toBeUndefined()
      return { action: "accept", content: { q1: "Yes" } }
    })
    const approved = await connection.client.callTool({ name: "plan_exit", arguments: {} })
    expect(approved.isError).toBeFalsy()
    expect(textOf(approved)).toContain("Add app.ts.")
    expect(await names(connection)).toContain("plan_enter")
    const built = await connection.client.callTool({
      name: "write",
      arguments: { filePath: "app.ts", content: "export {}\n" },
    })
    expect(built.isError).toBeFalsy()
  })

  it("a switch another process made: the connection's next call runs as plan, and the listing follows", async () => {
    const connection = await connect({ answer: answering().answer })
    expect(await names(connection)).toContain("plan_enter")
    const first = await connection.client.callTool({
      name: "write",
      arguments: { filePath: "a.ts", content: "a\n" },
    })
    expect(first.isError).toBeFalsy()
    const home = project.env.HOME!
    const db = new DatabaseSync(join(home, "data", "toolbelt.db"), { readOnly: true })
    const row = db.prepare("SELECT session_id FROM part WHERE tool = 'write'").get() as { session_id: string }
    db.close()

    // Another process continues the connection's session and switches it to plan.
    const entered = runCli(["call", "plan_enter", "{}", "--json", "--session", row.session_id], {
      cwd: project.dir,
      home,
      env: { TOOLBELT_TRUST: "1" },
    })
    expect(JSON.parse(entered.stdout)).toMatchObject({ status: "completed", metadata: { agent: "plan" } })

    const refused = await connection.client.callTool({
      name: "write",
      arguments: { filePath: "b.ts", content: "b\n" },
    })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toContain("the plan agent's defaults")
    const listed = await names(connection)
    expect(listed).toContain("plan_exit")
    expect(listed).not.toContain("plan_enter")
  })
})
