import { readFileSync } from "node:fs"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, step, text } from "../../adapters/ai/fixtures/mock-model.ts"
import { type TestBelt, testBelt } from "../../adapters/ai/fixtures/toolbelt.ts"
import { runTurn } from "../../adapters/ai/loop.ts"
import { internals } from "../../compose/internals.ts"
import { findByCommandLine } from "../../platform/shell/run/find-processes.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import type { Config } from "../../runtime/config/config.ts"
import type { AskRequest } from "../../runtime/permission/service.ts"
import type { Reply } from "../../runtime/permission/simple.ts"
import { isSubagent, routedModel, systemOf, toolsOf } from "./fixtures/routed-model.ts"

let belt: TestBelt | undefined
/** Closes the toolbelt the test opened last, if any. */
async function closeBelt(): Promise<void> {
  const open = belt
  belt = undefined
  await open?.close()
}
afterEach(closeBelt)

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
  const part = internals(toolbelt).store.parts.get(sessionID, callID)
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
    const titles: string[] = []
    toolbelt.subscribe("message.part.updated", (event) => {
      const { part } = event.properties
      if (part.tool !== "task" || part.state.status !== "running") return
      progress.push(part.state.metadata)
      if (part.state.title) titles.push(part.state.title)
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
    expect(internals(toolbelt).store.sessions.get(child)).toMatchObject({
      parentID: result.sessionID,
      agent: "general",
      title: "fix the file (@general subagent)",
    })
    const rules = internals(toolbelt).store.sessions.get(child)?.permission ?? []
    // task denied (general does not mention it, and the depth limit is reached); todowrite is denied by
    // general's own rules; the parent's whole policy holds over the child without being copied.
    expect(rules).toEqual([{ permission: "task", pattern: "*", action: "deny" }])
    expect(
      internals(toolbelt)
        .store.parts.list(child)
        .map((p) => [p.callID, p.tool, p.state.status]),
    ).toEqual([
      ["c1", "read", "completed"],
      ["c2", "edit", "completed"],
    ])
    expect(
      internals(toolbelt)
        .store.parts.list(result.sessionID)
        .map((p) => p.callID),
    ).toEqual(["t1"])

    // Live progress named the child session and its latest call.
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(progress).toContainEqual(
      expect.objectContaining({ sessionId: child, latest: expect.objectContaining({ tool: "edit" }) }),
    )
    expect(titles).toContain("fix the file: read")
    expect(titles.at(-1)).toMatch(/^fix the file: edit/)

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

  it("a child whose model fails, or whose agent's model cannot be used, returns <task_error>", async () => {
    const { toolbelt } = await open({
      config: {
        agent: { remote: { description: "Runs elsewhere", mode: "subagent", model: "anthropic/claude-x" } },
      },
    })
    const { MockLanguageModelV4 } = await import("ai/test")
    let parentCalls = 0
    const model = new MockLanguageModelV4({
      doStream: async (call) => {
        if (isSubagent(call)) throw new Error("the provider is down")
        parentCalls++
        return parentCalls === 1
          ? step(task("t1", {}), task("t2", { subagent_type: "remote", description: "elsewhere" }))
          : step(text("both failed"))
      },
    })
    const result = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "go" })
    expect(result.text).toBe("both failed")
    const failed = taskPart(toolbelt, result.sessionID, "t1").state as { status: string; error: string }
    expect(failed.status).toBe("error")
    expect(failed.error).toMatch(
      /^<task id="ses_\w+" state="error">\n<task_error>\nThe subagent's model failed: the provider is down\n<\/task_error>\n<\/task>$/,
    )
    expect(taskPart(toolbelt, result.sessionID, "t2").state).toMatchObject({
      status: "error",
      error: expect.stringContaining(
        "The remote agent runs on anthropic/claude-x, which cannot be used here: ANTHROPIC_API_KEY is not set",
      ),
    })
  })

  it("resumes the child by task_id: its history is replayed and it goes on in the same session", async () => {
    const { toolbelt } = await open()
    const model = routedModel({
      parent: [step(task("t1", { prompt: "Remember the word kiwi." })), step(text("ok"))],
      child: [step(text("I will remember kiwi.")), step(text("The word was kiwi."))],
    })
    const first = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "start" })
    const child = (taskPart(toolbelt, first.sessionID, "t1").state as { metadata: Record<string, unknown> })
      .metadata.sessionId as string

    // The second turn names the child; the scripted call's input is filled in here.
    const second = routedModel({
      parent: [
        step(task("t2", { description: "ask again", prompt: "Which word?", task_id: child })),
        step(text("It said kiwi.")),
      ],
      child: [step(text("The word was kiwi."))],
    })
    const result = await runTurn({
      toolbelt,
      model: { ...ids, model: second },
      prompt: "what was the word?",
      sessionID: first.sessionID,
    })
    expect(result.text).toBe("It said kiwi.")
    const resumed = taskPart(toolbelt, first.sessionID, "t2").state as {
      output: string
      metadata: Record<string, unknown>
    }
    expect(resumed.metadata.sessionId).toBe(child)
    expect(resumed.output).toContain(`<task id="${child}" state="completed">`)
    expect(resumed.output).toContain("The word was kiwi.")
    // The child's model call saw its own history: the first brief and its first answer.
    const childCall = second.calls.find((each) => each.script === "child")!.call
    const seen = JSON.stringify(childCall.prompt)
    expect(seen).toContain("Remember the word kiwi.")
    expect(seen).toContain("I will remember kiwi.")
    expect(seen).toContain("Which word?")
    expect(
      internals(toolbelt)
        .store.sessions.list({ parentID: first.sessionID })
        .map((each) => each.id),
    ).toEqual([child])
  })

  it("keeps to the depth limit: hidden below it, refused with opencode's message at it, nested within it", async () => {
    const orchestrator = {
      description: "Splits work among subagents",
      mode: "subagent",
      prompt: "You orchestrate.",
      permission: { task: "allow" },
    }
    // Depth 1 (the default): a subagent that may start subagents is still not offered task.
    {
      const { toolbelt } = await open({ config: { agent: { orchestrator } } })
      const model = routedModel({
        parent: [step(task("t1", { subagent_type: "orchestrator" })), step(text("done"))],
        child: [step(text("I cannot delegate."))],
      })
      const result = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "go" })
      expect(result.status).toBe("finished")
      const childCall = model.calls.find((each) => each.script === "child")!.call
      expect(toolsOf(childCall)).not.toContain("task")
      await closeBelt()
    }
    // Depth 0: no subagents at all, and the call says why.
    {
      const { toolbelt } = await open({ config: { subagent_depth: 0 } })
      const model = routedModel({ parent: [step(task("t1", {})), step(text("done"))] })
      const result = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "go" })
      expect(taskPart(toolbelt, result.sessionID, "t1").state).toMatchObject({
        status: "error",
        error: 'Subagent depth limit reached (0). Increase "subagent_depth" to allow nested subagents.',
      })
      await closeBelt()
    }
    // Depth 2: the orchestrator starts a general subagent, which may not start another.
    {
      const { toolbelt } = await open({ config: { subagent_depth: 2, agent: { orchestrator } } })
      const depth = (call: Parameters<typeof systemOf>[0]) =>
        systemOf(call).includes("You orchestrate.") ? "child" : isSubagent(call) ? "grandchild" : "parent"
      const model = routedModel(
        {
          parent: [step(task("t1", { subagent_type: "orchestrator" })), step(text("all done"))],
          child: [step(task("t2", { description: "inner work" })), step(text("the inner one finished"))],
          grandchild: [step(text("inner result"))],
        },
        depth,
      )
      const result = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "go" })
      expect(result.text).toBe("all done")
      const child = internals(toolbelt).store.sessions.list({ parentID: result.sessionID })[0]!
      const grandchild = internals(toolbelt).store.sessions.list({ parentID: child.id })[0]!
      expect(grandchild).toMatchObject({ agent: "general", title: "inner work (@general subagent)" })
      expect(toolsOf(model.calls.find((each) => each.script === "child")!.call)).toContain("task")
      expect(toolsOf(model.calls.find((each) => each.script === "grandchild")!.call)).not.toContain("task")
      expect(taskPart(toolbelt, child.id, "t2").state).toMatchObject({ status: "completed" })
    }
  })

  it("an agent file with its own rules and prompt runs as a subagent; a broken one is reported", async () => {
    const { toolbelt, project } = await open()
    await mkdir(join(project, "docs"))
    await writeFile(join(project, "docs", "guide.md"), "old\n")
    await writeFile(join(project, "src.ts"), "old\n")
    await mkdir(join(project, ".toolbelt", "agents"), { recursive: true })
    await writeFile(
      join(project, ".toolbelt", "agents", "docs.md"),
      "---\ndescription: Edits documentation only\nmode: subagent\npermission:\n  edit:\n    '*': deny\n    'docs/*': allow\n---\nYou edit documentation and nothing else.\n",
    )
    await writeFile(join(project, ".toolbelt", "agents", "broken.md"), "---\nmode: [\n---\nx\n")
    // Agent files are read when the toolbelt opens: open a second one on the same project.
    const { createToolbelt } = await import("../../compose/toolbelt.ts")
    await using second = await createToolbelt({
      directory: project,
      dataDir: join(project, ".data2"),
      store: "memory",
      sweep: false,
      config: { permission: { doom_loop: "allow" } },
      env: { PATH: process.env.PATH, HOME: project },
    })
    expect(second.pluginErrors).toEqual([
      {
        spec: join(project, ".toolbelt", "agents", "broken.md"),
        error: expect.stringContaining("invalid YAML in the frontmatter at line 2"),
        kind: "agent file",
      },
    ])
    const model = routedModel({
      parent: [step(task("t1", { subagent_type: "docs", description: "update docs" })), step(text("done"))],
      child: [
        step(call("r1", "read", { filePath: "src.ts" }), call("r2", "read", { filePath: "docs/guide.md" })),
        step(
          call("e1", "edit", { filePath: "src.ts", oldString: "old", newString: "new" }),
          call("e2", "edit", { filePath: "docs/guide.md", oldString: "old", newString: "new" }),
        ),
        step(text("Updated the guide; src.ts is not mine to change.")),
      ],
    })
    const result = await runTurn({ toolbelt: second, model: { ...ids, model }, prompt: "update the docs" })
    expect(result.status).toBe("finished")
    const parentCall = model.calls[0]!.call
    const description = parentCall.tools?.find((tool) => tool.name === "task")
    expect(description && "description" in description ? description.description : "").toContain(
      "- docs: Edits documentation only",
    )
    const childCall = model.calls.find((each) => each.script === "child")!.call
    expect(systemOf(childCall)).toContain("You edit documentation and nothing else.")
    const child = internals(second).store.sessions.list({ parentID: result.sessionID })[0]!
    const parts = Object.fromEntries(
      internals(second)
        .store.parts.list(child.id)
        .map((part) => [part.callID, part.state]),
    )
    expect(parts.e1).toMatchObject({
      status: "error",
      error: expect.stringContaining("prevents you from using"),
    })
    expect(parts.e2).toMatchObject({ status: "completed" })
    expect(readFileSync(join(project, "docs", "guide.md"), "utf8")).toBe("new\n")
    expect(readFileSync(join(project, "src.ts"), "utf8")).toBe("old\n")
    expect(toolbelt).toBeDefined()
  })

  it("a parent abort mid-child aborts the child's turn and leaves no process running", async () => {
    const { toolbelt } = await open()
    const model = routedModel({
      parent: [step(task("t1", { description: "run the long job" })), step(text("never"))],
      child: [
        step(call("b1", "bash", { command: "sleep 61236", run_in_background: true })),
        step(call("b2", "bash", { command: "sleep 61234 & echo started; sleep 61235" })),
        step(text("never")),
      ],
    })
    const abort = new AbortController()
    toolbelt.subscribe("message.part.updated", (event) => {
      const { part } = event.properties
      const output = part.state.status === "running" ? part.state.metadata?.output : undefined
      if (part.callID === "b2" && typeof output === "string" && output.includes("started")) abort.abort()
    })
    const result = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "go", abort: abort.signal })

    expect(result.status).toBe("aborted")
    expect(abort.signal.aborted).toBe(true)
    expect(taskPart(toolbelt, result.sessionID, "t1").state).toMatchObject({
      status: "error",
      metadata: { interrupted: true },
    })
    const child = internals(toolbelt).store.sessions.list({ parentID: result.sessionID })[0]!
    expect(internals(toolbelt).store.parts.get(child.id, "b1")?.state).toMatchObject({ status: "completed" })
    expect(internals(toolbelt).store.parts.get(child.id, "b2")?.state).toMatchObject({ status: "error" })
    for (const seconds of ["61234", "61235", "61236"])
      expect(findByCommandLine(`sleep\0${seconds}`)).toEqual([])
  })

  it("a child's ask reaches the caller's person, saying which subagent asks; a refusal stops both", async () => {
    const asked: AskRequest[] = []
    let answer: Reply = "once"
    const { toolbelt, project } = await open({
      decide: async (request) => {
        asked.push(request)
        return answer
      },
    })
    await writeFile(join(project, ".env"), "TOKEN=1\n")
    const script = () =>
      routedModel({
        parent: [step(task("t1", { description: "read the env" })), step(text("parent done"))],
        child: [step(call("r1", "read", { filePath: ".env" })), step(text("TOKEN is set."))],
      })
    const result = await runTurn({ toolbelt, model: { ...ids, model: script() }, prompt: "go" })
    expect(result.text).toBe("parent done")
    const child = internals(toolbelt).store.sessions.list({ parentID: result.sessionID })[0]!
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({
      sessionID: child.id,
      agent: "general",
      permission: "read",
      subagent: {
        agent: "general",
        description: "read the env",
        parent: { sessionID: result.sessionID, callID: "t1" },
        root: { sessionID: result.sessionID, callID: "t1" },
      },
    })
    expect(taskPart(toolbelt, result.sessionID, "t1").state).toMatchObject({ status: "completed" })

    // The person says no: the child stops, and so does the turn that started it.
    answer = "reject"
    const refused = await runTurn({ toolbelt, model: { ...ids, model: script() }, prompt: "again" })
    expect(refused.status).toBe("blocked")
    expect(refused.error).toBe("The user rejected permission to use this specific tool call.")
    expect(taskPart(toolbelt, refused.sessionID, "t1").state).toMatchObject({ status: "error" })
  })

  it("in the background: returns at once, reports a running child by task_id, and the result reaches the next turn", async () => {
    const { toolbelt } = await open({ config: { background_subagents: true } })
    const { promise: opened, resolve: open_ } = Promise.withResolvers<void>()
    const { z } = await import("zod")
    const Tool = await import("../../runtime/tool/index.ts")
    toolbelt.register({
      gate: Tool.make({
        description: "Waits until the test opens it.",
        input: z.object({}),
        execute: async () => {
          await opened
          return "opened"
        },
      }),
    })
    let childID = ""
    const model = routedModel({
      parent: [
        step(task("t1", { description: "slow work", background: true })),
        () => {
          childID = internals(toolbelt).store.sessions.list({ parentID: first })[0]!.id
          return step(task("t2", { description: "check on it", task_id: childID }))
        },
        step(text("It is on its way.")),
        step(text("The background work is done.")),
      ],
      child: [step(call("g1", "gate", {})), step(text("slow result"))],
    })
    let first = ""
    const turn = await runTurn({
      toolbelt,
      model: { ...ids, model },
      prompt: "start it",
      onStart: ({ sessionID }) => {
        first = sessionID
      },
    })
    expect(turn.text).toBe("It is on its way.")
    const started = taskPart(toolbelt, first, "t1").state as {
      output: string
      metadata: Record<string, unknown>
    }
    expect(started.output).toMatch(
      new RegExp(`^<task id="${childID}" state="running">\n<summary>Background task started: slow work`),
    )
    expect(started.metadata).toMatchObject({ background: true, sessionId: childID })
    const checked = taskPart(toolbelt, first, "t2").state as { output: string }
    expect(checked.output).toContain(`<task id="${childID}" state="running">`)
    expect(checked.output).toContain("Still running: slow work (@general)")

    // The child finishes after the turn; its result waits for the next one.
    open_()
    for (
      let i = 0;
      i < 500 &&
      !internals(toolbelt)
        .store.messages.list(childID)
        .some((m) => m.role === "assistant");
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 10))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const next = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "and now?", sessionID: first })
    expect(next.text).toBe("The background work is done.")
    const seen = JSON.stringify(model.calls.at(-1)!.call.prompt)
    expect(seen).toContain(`<task id=\\"${childID}\\" state=\\"completed\\">`)
    expect(seen).toContain("Background task completed: slow work (@general)")
    expect(seen).toContain("slow result")
    // Once only: the turn after that does not see it again as a new message.
    expect(toolbelt.takeNotices(first)).toEqual([])
  })

  it("background runs are refused unless the config turns them on, and the schema has no background then", async () => {
    const { toolbelt } = await open()
    const model = routedModel({ parent: [step(task("t1", { background: true })), step(text("done"))] })
    const result = await runTurn({ toolbelt, model: { ...ids, model }, prompt: "go" })
    const schema = model.calls[0]!.call.tools?.find((tool) => tool.name === "task")
    expect(JSON.stringify(schema)).not.toContain("background")
    // Not in the schema: the call is refused naming the argument (settlement drops no field unread).
    expect(taskPart(toolbelt, result.sessionID, "t1").state).toMatchObject({
      status: "error",
      error: expect.stringMatching(/background: not a parameter of this tool/),
    })
  })
})
