import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt, type ToolbeltOptions } from "../../compose/toolbelt.ts"
import type { Event } from "../../runtime/bus/events.ts"
import { database, features } from "../../runtime/question/fixtures/questions.ts"
import { answeredText } from "./question.ts"

let dir: string
const open: Toolbelt[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-question-"))
})

afterEach(async () => {
  for (const toolbelt of open.splice(0)) await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

async function toolbeltWith(options: ToolbeltOptions = {}): Promise<Toolbelt> {
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    store: "memory",
    config: {},
    sweep: false,
    ...options,
  })
  open.push(toolbelt)
  return toolbelt
}

describe("question through the library: the bus events and reply", () => {
  it("publishes question.asked for the call, and the reply becomes the answer the model reads", async () => {
    const toolbelt = await toolbeltWith()
    toolbelt.subscribe("question.asked", (event) => {
      toolbelt.questions.reply({ requestID: event.properties.id, answers: [["Redis"], []] })
    })
    const asked = internals(toolbelt).bus.once("question.asked")
    const replied = internals(toolbelt).bus.once("question.replied")
    const result = await toolbelt.call({
      tool: "question",
      input: { questions: [database, features] },
      sessionID: "ses_q",
      callID: "call_q",
    })
    expect(result).toMatchObject({
      status: "completed",
      title: "Asked 2 questions",
      output:
        'User has answered your questions: "Which database should the cache use?"="Redis", "Which features matter?"="Unanswered". You can now continue with the user\'s answers in mind.',
      metadata: { answers: [["Redis"], []] },
    })
    const event = await asked
    expect(event.properties).toMatchObject({
      sessionID: "ses_q",
      questions: [database, features],
      tool: { callID: "call_q" },
    })
    expect((await replied).properties).toMatchObject({ sessionID: "ses_q", answers: [["Redis"], []] })
  })

  it("a dismissal fails the call and marks the turn to stop, like a rejected permission", async () => {
    const toolbelt = await toolbeltWith()
    const rejected: Event<"question.rejected">[] = []
    toolbelt.subscribe("question.rejected", (event) => {
      rejected.push(event)
    })
    toolbelt.subscribe("question.asked", (event) => {
      toolbelt.questions.reject({ requestID: event.properties.id })
    })
    const result = await toolbelt.call({ tool: "question", input: { questions: [database] }, sessionID: "s" })
    expect(result).toMatchObject({
      status: "error",
      kind: "question",
      blocked: true,
      error: "The user dismissed this question.",
    })
    await internals(toolbelt).bus.idle()
    expect(rejected).toHaveLength(1)
  })

  it("an aborted call withdraws its question and ends interrupted", async () => {
    const toolbelt = await toolbeltWith()
    const abort = new AbortController()
    toolbelt.subscribe("question.asked", () => abort.abort())
    const withdrawn = internals(toolbelt).bus.once("question.rejected")
    const result = await toolbelt.call({
      tool: "question",
      input: { questions: [database] },
      abort: abort.signal,
    })
    expect(result).toMatchObject({ status: "error", kind: "interrupted" })
    await withdrawn
    expect(toolbelt.questions.list()).toEqual([])
  })
})

describe("question answered by the toolbelt's `answer` function (a terminal prompt)", () => {
  it("takes its answers, several for a multiple choice and a typed one", async () => {
    const toolbelt = await toolbeltWith({
      answer: async (request) =>
        request.questions.map((q) => (q.multiple ? ["Speed", "Size"] : ["Postgres"])),
    })
    const result = await toolbelt.call({ tool: "question", input: { questions: [database, features] } })
    expect(result).toMatchObject({
      status: "completed",
      metadata: { answers: [["Postgres"], ["Speed", "Size"]] },
    })
  })

  it("where nobody can answer, the call fails saying why, and the turn stops", async () => {
    const toolbelt = await toolbeltWith({ answer: async () => ({ unanswered: "stdin is not a terminal" }) })
    const result = await toolbelt.call({ tool: "question", input: { questions: [database] } })
    expect(result).toMatchObject({ status: "error", kind: "question", blocked: true })
    expect(result.status === "error" && result.error).toContain("stdin is not a terminal")
  })
})

describe("where question is offered", () => {
  it("only where someone can answer, and only to the agents that allow it (build, plan)", async () => {
    const toolbelt = await toolbeltWith()
    const names = async (query: Parameters<Toolbelt["tools"]>[0]) =>
      (await toolbelt.tools(query)).map((tool) => tool.name)
    expect(await names({ agent: "build", interactive: true })).toContain("question")
    expect(await names({ agent: "build" })).toContain("question")
    expect(await names({ agent: "plan", interactive: true })).toContain("question")
    expect(await names({ agent: "build", interactive: false })).not.toContain("question")
    expect(await names({ agent: "general", interactive: true })).not.toContain("question")
    const denied = await toolbelt.call({
      tool: "question",
      input: { questions: [database] },
      agent: "general",
    })
    expect(denied).toMatchObject({ status: "error", kind: "permission" })
  })
})

describe("question's parameters", () => {
  it("refuses a closed question without options, duplicate labels, and no questions at all", async () => {
    const toolbelt = await toolbeltWith()
    const call = (questions: unknown[]) => toolbelt.call({ tool: "question", input: { questions } })
    const closed = await call([{ ...database, options: [], custom: false }])
    expect(closed.status === "error" && closed.error).toContain("needs at least one option")
    const twice = await call([{ ...database, options: [database.options[0], database.options[0]] }])
    expect(twice.status === "error" && twice.error).toContain('two options are labelled "SQLite"')
    expect((await call([])).status).toBe("error")
    expect(toolbelt.questions.list()).toEqual([])
  })

  it("words the answers as opencode does", () => {
    expect(answeredText([database], [["SQLite"]])).toBe(
      'User has answered your questions: "Which database should the cache use?"="SQLite". You can now continue with the user\'s answers in mind.',
    )
    expect(answeredText([features], [["Speed", "Size"]])).toContain('"Which features matter?"="Speed, Size"')
  })
})
