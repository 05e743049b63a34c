import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import type { Event } from "../../runtime/bus/events.ts"
import { withIds } from "./todowrite.ts"

let dir: string
let toolbelt: Toolbelt

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-todowrite-"))
  toolbelt = await createToolbelt({ directory: dir, dataDir: join(dir, ".data"), config: {}, sweep: false })
})

afterEach(async () => {
  await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

const write = (todos: unknown[], sessionID = "ses_a", agent?: string) =>
  toolbelt.call({ tool: "todowrite", input: { todos }, sessionID, ...(agent ? { agent } : {}) })

describe("todowrite", () => {
  it("replaces the session's list, gives every item an id, publishes todo.updated and titles the open items", async () => {
    const events: Event<"todo.updated">[] = []
    toolbelt.subscribe("todo.updated", (event) => {
      events.push(event)
    })
    const result = await write([
      { content: "Read the parser", status: "completed", priority: "high" },
      { content: "Fix the off-by-one", status: "in_progress", priority: "high" },
      { content: "Add a regression test", status: "pending", priority: "medium" },
      { content: "Rewrite the lexer", status: "cancelled", priority: "low" },
    ])
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    const todos = [
      { id: "1", content: "Read the parser", status: "completed", priority: "high" },
      { id: "2", content: "Fix the off-by-one", status: "in_progress", priority: "high" },
      { id: "3", content: "Add a regression test", status: "pending", priority: "medium" },
      { id: "4", content: "Rewrite the lexer", status: "cancelled", priority: "low" },
    ]
    expect(result.title).toBe("2 todos")
    expect(JSON.parse(result.output)).toEqual(todos)
    expect(result.metadata.todos).toEqual(todos)
    expect(internals(toolbelt).store.todos.get("ses_a")).toEqual(todos)
    await internals(toolbelt).bus.idle()
    expect(events.map((event) => event.properties)).toEqual([{ sessionID: "ses_a", todos }])
  })

  it("keeps ids stable: an item sent without one keeps the id of the item with its content", async () => {
    await write([
      { content: "a", status: "pending", priority: "low" },
      { content: "b", status: "pending", priority: "low" },
    ])
    const result = await write([
      { content: "b", status: "completed", priority: "low" },
      { content: "new", status: "pending", priority: "high" },
      { id: "1", content: "a, reworded", status: "in_progress", priority: "low" },
    ])
    expect(result.status === "completed" && result.metadata.todos).toEqual([
      { id: "2", content: "b", status: "completed", priority: "low" },
      { id: "3", content: "new", status: "pending", priority: "high" },
      { id: "1", content: "a, reworded", status: "in_progress", priority: "low" },
    ])
    expect(result.status === "completed" && result.title).toBe("2 todos")
  })

  it("enforces the statuses and priorities, and one id per item, before anything is stored", async () => {
    const bad = await write([{ content: "x", status: "done", priority: "urgent" }])
    expect(bad).toMatchObject({ status: "error", kind: "invalid" })
    expect(bad.status === "error" && bad.error).toMatch(/pending.*in_progress.*completed.*cancelled/s)
    expect(bad.status === "error" && bad.error).toMatch(/high.*medium.*low/s)
    const twice = await write([
      { id: "7", content: "x", status: "pending", priority: "low" },
      { id: "7", content: "y", status: "pending", priority: "low" },
    ])
    expect(twice.status === "error" && twice.error).toContain('id "7" is used by two items')
    const empty = await write([{ content: "  ", status: "pending", priority: "low" }])
    expect(empty.status).toBe("error")
    expect(internals(toolbelt).store.todos.get("ses_a")).toEqual([])
  })

  it("keeps each session's list apart, and an empty list clears it", async () => {
    await write([{ content: "a", status: "pending", priority: "low" }], "ses_a")
    await write([{ content: "b", status: "pending", priority: "low" }], "ses_b")
    expect(
      internals(toolbelt)
        .store.todos.get("ses_a")
        .map((todo) => todo.content),
    ).toEqual(["a"])
    expect(
      internals(toolbelt)
        .store.todos.get("ses_b")
        .map((todo) => todo.content),
    ).toEqual(["b"])
    const cleared = await write([], "ses_a")
    expect(cleared).toMatchObject({ status: "completed", title: "0 todos", output: "[]" })
    expect(internals(toolbelt).store.todos.get("ses_a")).toEqual([])
  })

  it("is denied to subagents (general, explore) and hidden from them with todoread, as opencode", async () => {
    for (const agent of ["general", "explore"]) {
      const names = (await toolbelt.tools({ agent })).map((tool) => tool.name)
      expect(names).not.toContain("todowrite")
      expect(names).not.toContain("todoread")
      const denied = await write([{ content: "x", status: "pending", priority: "low" }], "ses_sub", agent)
      expect(denied).toMatchObject({ status: "error", kind: "permission" })
    }
    const build = (await toolbelt.tools({ agent: "build" })).map((tool) => tool.name)
    expect(build).toEqual(expect.arrayContaining(["todowrite", "todoread"]))
    expect(internals(toolbelt).store.todos.get("ses_sub")).toEqual([])
  })
})

describe("withIds", () => {
  const item = (content: string, id?: string) => ({
    content,
    status: "pending" as const,
    priority: "low" as const,
    ...(id ? { id } : {}),
  })
  const todo = (id: string, content: string) => ({ id, ...item(content) })

  it.each([
    ["numbers a new list from 1", [item("a"), item("b")], [], ["1", "2"]],
    ["keeps the ids it is given", [item("a", "x"), item("b", "y")], [], ["x", "y"]],
    ["continues after the largest number", [item("c")], [todo("9", "a")], ["10"]],
    ["numbers past the ids it is given", [item("a", "3"), item("b")], [], ["3", "4"]],
    ["reuses an id by content", [item("b"), item("a")], [todo("1", "a"), todo("2", "b")], ["2", "1"]],
    ["never reuses an id given to another item", [item("a", "1"), item("a")], [todo("1", "a")], ["1", "2"]],
    ["gives duplicates of one content their own ids", [item("a"), item("a")], [todo("5", "a")], ["5", "6"]],
  ])("%s", (_name, items, previous, ids) => {
    expect(withIds(items, previous).map((todo) => todo.id)).toEqual(ids)
  })
})
