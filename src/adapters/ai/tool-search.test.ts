// Deferred tools in the AI SDK adapter and the agent loop, with the AI SDK's mock model: what each
// model call is offered (its `tools`), before and after tool_search loads a tool into the session.
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { internals } from "../../compose/internals.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { call, scripted, step, text } from "./fixtures/mock-model.ts"
import { type TestBelt, testBelt } from "./fixtures/toolbelt.ts"
import { runTurn } from "./loop.ts"
import { toAISDKTools } from "./tools.ts"

let belt: TestBelt | undefined
afterEach(async () => {
  await belt?.close()
  belt = undefined
})

const mock = { providerID: "mock", modelID: "mock-model" }

/** A toolbelt whose MCP-sourced tools are deferred (`"tool_search": "on"`). */
async function deferring(): Promise<TestBelt> {
  const made = await testBelt({ config: { tool_search: "on" } as never })
  const tool = (what: string) =>
    Tool.make({
      description: `${what}.`,
      input: z.object({ title: z.string().describe("The title") }),
      execute: ({ title }) => `${what}: ${title}`,
    })
  made.toolbelt.register(
    {
      demo_create_issue: tool("Create an issue in a repository"),
      demo_send_message: tool("Send a message to a chat channel"),
    },
    { source: "mcp:demo" },
  )
  return made
}

/** The tool names each model call was offered. */
function offered(model: ReturnType<typeof scripted>): string[][] {
  return model.doStreamCalls.map((options) => (options.tools ?? []).map((tool) => tool.name).sort())
}

describe("deferred tools in the AI SDK adapter", () => {
  it("holds every tool in the set but offers the deferred ones only once loaded", async () => {
    belt = await deferring()
    const ai = await toAISDKTools({
      toolbelt: belt.toolbelt,
      sessionID: "ses_set",
      messageID: "m",
      model: mock,
    })
    expect(Object.keys(ai.tools)).toEqual(
      expect.arrayContaining(["demo_create_issue", "tool_search", "echo"]),
    )
    expect(ai.activeTools).toContain("tool_search")
    expect(ai.activeTools).toContain("echo")
    expect(ai.activeTools).not.toContain("demo_create_issue")
    expect(ai.offered()).toEqual(ai.activeTools)
    internals(belt.toolbelt).toolSearch.load("ses_set", ["demo_create_issue"])
    expect(ai.offered()).toContain("demo_create_issue")
    expect(ai.offered()).not.toContain("demo_send_message")
    expect(ai.activeTools).not.toContain("demo_create_issue")
  })

  it("runTurn: step 1 searches, step 2 is offered the match and calls it", async () => {
    belt = await deferring()
    const model = scripted([
      step(call("search", "tool_search", { query: "create an issue" })),
      step(call("create", "demo_create_issue", { title: "Flaky test" })),
      step(text("Filed it.")),
    ])
    const result = await runTurn({
      toolbelt: belt.toolbelt,
      model: { model, ...mock },
      prompt: "file an issue",
    })
    expect(result.status).toBe("finished")
    const [first, second, third] = offered(model)
    expect(first).toContain("tool_search")
    expect(first).toContain("echo")
    expect(first).not.toContain("demo_create_issue")
    expect(second).toContain("demo_create_issue")
    expect(second).not.toContain("demo_send_message")
    expect(third).toContain("demo_create_issue")
    const parts = Object.fromEntries(result.parts.map((part) => [part.tool, part.state]))
    expect(parts.tool_search?.status).toBe("completed")
    expect(parts.demo_create_issue).toMatchObject({
      status: "completed",
      output: "Create an issue in a repository: Flaky test",
    })
  })

  it("runTurn: a deferred tool called by name without a search runs, and is offered from the next step", async () => {
    belt = await deferring()
    const model = scripted([
      step(call("direct", "demo_send_message", { title: "hello" })),
      step(text("Sent.")),
    ])
    const result = await runTurn({ toolbelt: belt.toolbelt, model: { model, ...mock }, prompt: "say hello" })
    expect(result.parts.map((part) => [part.tool, part.state.status])).toEqual([
      ["demo_send_message", "completed"],
    ])
    const [first, second] = offered(model)
    expect(first).not.toContain("demo_send_message")
    expect(second).toContain("demo_send_message")
    // Another session was not given it.
    expect(internals(belt.toolbelt).toolSearch.loaded("ses_other").has("demo_send_message")).toBe(false)
  })

  it("runTurn: the last allowed step still gets no tools, loaded ones included", async () => {
    belt = await deferring()
    const model = scripted([
      step(call("search", "tool_search", { query: "create an issue" })),
      step(text("Out of steps.")),
    ])
    const result = await runTurn({
      toolbelt: belt.toolbelt,
      model: { model, ...mock },
      prompt: "file an issue",
      steps: 2,
    })
    expect(result.stepLimit).toBe(true)
    const [first, last] = offered(model)
    expect(first).toContain("tool_search")
    expect(last).toEqual([])
  })

  it("repairs a wrong-case name of a deferred tool, and runs it", async () => {
    belt = await deferring()
    const seen = new Set<string>()
    belt.toolbelt.subscribe("message.part.updated", (event) => {
      seen.add(event.properties.part.tool)
    })
    const model = scripted([step(call("loud", "DEMO_CREATE_ISSUE", { title: "Loud" })), step(text("ok"))])
    const result = await runTurn({ toolbelt: belt.toolbelt, model: { model, ...mock }, prompt: "go" })
    expect(result.parts.map((part) => [part.tool, part.state.status])).toEqual([
      ["demo_create_issue", "completed"],
    ])
    // Recorded under the tool's own name from the first streamed chunk on.
    expect([...seen]).toEqual(["demo_create_issue"])
  })
})
