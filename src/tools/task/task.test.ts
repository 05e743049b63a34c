import { readFileSync } from "node:fs"
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, step, text } from "../../adapters/ai/fixtures/mock-model.ts"
import { type TestBelt, testBelt } from "../../adapters/ai/fixtures/toolbelt.ts"
import { runTurn } from "../../adapters/ai/loop.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import type { Config } from "../../runtime/config/config.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"
import type { Reply } from "../../runtime/permission/simple.ts"
import { isSubagent, routedModel, systemOf, toolsOf } from "./fixtures/routed-model.ts"

let belt: TestBelt | undefined
afterEach(async () => {
  await belt?.close()
  belt = undefined
})

const ids = { providerID: "mock", modelID: "mock-model" }

async function open(options: { config?: Config; decide?: (request: AskRequest) => Promise<Reply> } = {}) {
  belt = await testBelt({
    config: { permission: { doom_loop: "allow" }, ...options.config },
    ...(options.decide ? { decide: options.decide } : {}),
  })
  return belt
}

const task = (id: string, input: Record<string, unknown>) =>
  call(id, "task", {
    description: "fix the file",
    prompt: "Change foo to bar in a.txt",
    subagent_type: "general",
    ...input,
  })

/** The parent session's task part. */
function taskPart(toolbelt: TestBelt["toolbelt"], sessionID: string, callID: string): ToolPart {
  const part = toolbelt.store.parts.get(sessionID, callID)
  if (!part) throw new Error(`no part ${callID}`)
  return part
}

describe("task: a subagent on a child session (mock model)", () => {
  it("reads and edits through the child session and returns its answer", async () => {
    const { toolbelt, project } = await open()
    await writeFile(join(project, "a.txt"), "foo\n")
    const model = routedModel({
      parent: [step(task("t1", {})), step(text("The subagent changed it."))],
      child: [
        step(call("c1", "read", { filePath: "a.txt" })),
        step(call("c2", "edit", { filePath: "a.txt", oldString: "foo", newString: "bar" })),
        step(text("Changed foo to bar in a.txt.")),
      ],
    })
    const progress: unknown[] = []
    toolbelt.bus.subscribe("message.part.updated", (event) => {
      const { part } = event.properties
      if (part.tool === "task" && part.state.status === "running") progress.push(part.state.metadata)
    })

    const result = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "fix a.txt" })

    expect(result.status).toBe("finished")
    expect(result.text).toBe("The subagent changed it.")
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("bar\n")
    const part = taskPart(toolbelt, result.sessionID, "t1")
    expect(part.state.status).toBe("completed")
    const state = part.state as Extract<ToolPart["state"], { status: "completed" }>
    const child = state.metadata.sessionId as string
    expect(state.output).toBe(
      `<task id="${child}" state="completed">\n<task_result>\nChanged foo to bar in a.txt.\n</task_result>\n</task>`,
    )
    expect(state.title).toBe("fix the file")
    expect(state.metadata).toMatchObject({
      parentSessionId: result.sessionID,
      agent: "general",
      model: "mock/mock-model",
    })

    // The child session: under the parent, titled, with its own rules; the calls are its parts.
    expect(toolbelt.store.sessions.get(child)).toMatchObject({
      parentID: result.sessionID,
      agent: "general",
      title: "fix the file (@general subagent)",
    })
    const rules = toolbelt.store.sessions.get(child)?.permission ?? []
    // build's standing denial carried down; task denied (general does not mention it, and the depth
    // limit is reached); todowrite is denied by general's own rules.
    expect(rules).toEqual([
      { permission: "plan_exit", pattern: "*", action: "deny" },
      { permission: "task", pattern: "*", action: "deny" },
    ])
    expect(toolbelt.store.parts.list(child).map((p) => [p.callID, p.tool, p.state.status])).toEqual([
      ["c1", "read", "completed"],
      ["c2", "edit", "completed"],
    ])
    expect(toolbelt.store.parts.list(result.sessionID).map((p) => p.callID)).toEqual(["t1"])

    // Live progress named the child session and its latest call.
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(progress).toContainEqual(
      expect.objectContaining({ sessionId: child, latest: expect.objectContaining({ tool: "edit" }) }),
    )

    // What each model call saw: the parent is offered task, the child neither task nor todo tools,
    // and the child gets the subagent's instructions and only the brief.
    const [first, ...rest] = model.calls
    expect(toolsOf(first!.call)).toContain("task")
    const childCall = rest.find((each) => isSubagent(each.call))!.call
    expect(toolsOf(childCall)).not.toContain("task")
    expect(toolsOf(childCall)).not.toContain("todowrite")
    expect(toolsOf(childCall)).toContain("edit")
    expect(JSON.stringify(childCall.prompt)).toContain("Change foo to bar in a.txt")
    expect(JSON.stringify(childCall.prompt)).not.toContain("fix a.txt")
  })
})
