// The session tools through the library, as a package user imports it: the bus events and `reply`.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createToolbelt, type QuestionRequest } from "agent-toolbelt"
import { expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"

it("a library user answers questions from the bus, follows the todo list and plan mode", async () => {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-session-lib-"))
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    config: {},
    sweep: false,
  })
  try {
    const asked: QuestionRequest[] = []
    toolbelt.subscribe("question.asked", (event) => {
      asked.push(event.properties)
      toolbelt.questions.reply({ requestID: event.properties.id, answers: [["Yes"]] })
    })
    const todos: unknown[] = []
    toolbelt.subscribe("todo.updated", (event) => {
      todos.push(event.properties.todos)
    })
    const sessionID = "ses_lib"

    await toolbelt.call({
      tool: "todowrite",
      input: { todos: [{ content: "Plan the change", status: "in_progress", priority: "high" }] },
      sessionID,
    })
    expect((await toolbelt.call({ tool: "plan_enter", input: {}, sessionID })).status).toBe("completed")
    await toolbelt.call({
      tool: "write",
      input: { filePath: ".toolbelt/plans/ses_lib.md", content: "# Plan\n" },
      sessionID,
    })
    const exit = await toolbelt.call({ tool: "plan_exit", input: {}, sessionID })
    expect(exit).toMatchObject({ status: "completed", metadata: { agent: "build" } })
    expect(asked.map((request) => request.questions[0]!.header)).toEqual(["Build Agent"])
    expect(internals(toolbelt).store.sessionAgents.get(sessionID)).toBe("build")
    await internals(toolbelt).bus.idle()
    expect(todos).toEqual([
      [{ id: "1", content: "Plan the change", status: "in_progress", priority: "high" }],
    ])
  } finally {
    await toolbelt.close()
    await rm(dir, { recursive: true, force: true })
  }
})
