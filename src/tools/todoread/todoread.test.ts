import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { createToolbelt } from "../../compose/toolbelt.ts"

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-todoread-"))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const open = () => createToolbelt({ directory: dir, dataDir: join(dir, ".data"), config: {}, sweep: false })

it("reads an empty list as []", async () => {
  const toolbelt = await open()
  const result = await toolbelt.call({ tool: "todoread", input: {}, sessionID: "ses_none" })
  expect(result).toMatchObject({
    status: "completed",
    title: "0 todos",
    output: "[]",
    metadata: { todos: [] },
  })
  await toolbelt.close()
})

it("reads the list todowrite left, after a restart (another toolbelt on the same store)", async () => {
  const first = await open()
  const written = await first.call({
    tool: "todowrite",
    input: {
      todos: [
        { content: "one", status: "in_progress", priority: "high" },
        { content: "two", status: "pending", priority: "low" },
      ],
    },
    sessionID: "ses_kept",
  })
  expect(written.status).toBe("completed")
  await first.close()

  const second = await open()
  const result = await second.call({ tool: "todoread", input: {}, sessionID: "ses_kept" })
  expect(result).toMatchObject({ status: "completed", title: "2 todos" })
  expect(result.status === "completed" && JSON.parse(result.output)).toEqual([
    { id: "1", content: "one", status: "in_progress", priority: "high" },
    { id: "2", content: "two", status: "pending", priority: "low" },
  ])
  await second.close()
})

it("asks todoread, so a rule can deny it", async () => {
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    config: { permission: { todoread: "deny" } },
    sweep: false,
  })
  const result = await toolbelt.call({ tool: "todoread", input: {}, sessionID: "ses_x" })
  expect(result).toMatchObject({ status: "error", kind: "permission" })
  expect(result.status === "error" && result.error).toContain("todoread")
  await toolbelt.close()
})
