// The spec's defaults and fields: a turn's step limit (`agent.steps ?? 100`), `InitContext.agent` the
// whole agent, `skill` and `plan_exit` under "Not offered" with their reasons.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MockLanguageModelV4 } from "ai/test"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { call, step, text } from "../../src/adapters/ai/fixtures/mock-model.ts"
import { type TestBelt, testBelt } from "../../src/adapters/ai/fixtures/toolbelt.ts"
import { DEFAULT_STEPS, runTurn } from "../../src/adapters/ai/loop.ts"
import * as Tool from "../../src/runtime/tool/index.ts"
import { runCli } from "../fixtures/cli.ts"

let belt: TestBelt | undefined
afterEach(async () => {
  await belt?.close()
  belt = undefined
})

const mock = { providerID: "mock", modelID: "mock-model" }

/** A model that calls echo with a new text at every step, as long as it is offered tools. */
function tireless(): MockLanguageModelV4 {
  let n = 0
  return new MockLanguageModelV4({
    provider: "mock",
    modelId: "mock-model",
    doStream: async (options) => {
      n++
      return options.tools?.length
        ? step(call(`c${n}`, "echo", { text: `step ${n}` }))
        : step(text("Out of steps."))
    },
  })
}

describe("a turn's step limit", { timeout: 120_000 }, () => {
  it("is 100 model calls by default, the last one without tools", async () => {
    expect(DEFAULT_STEPS).toBe(100)
    belt = await testBelt()
    const model = tireless()
    const turn = await runTurn({
      toolbelt: belt.toolbelt,
      model: { model, ...mock },
      prompt: "go on forever",
    })
    expect(model.doStreamCalls).toHaveLength(100)
    expect(turn.stepLimit).toBe(true)
    expect(belt.runs.echo).toBe(99)
  })

  it("is the agent's steps when it sets them", async () => {
    belt = await testBelt({ config: { agent: { build: { steps: 3 } } } as never })
    const model = tireless()
    const turn = await runTurn({ toolbelt: belt.toolbelt, model: { model, ...mock }, prompt: "go" })
    expect(model.doStreamCalls).toHaveLength(3)
    expect(turn.stepLimit).toBe(true)
  })

  it("and the call's own steps win over both", async () => {
    belt = await testBelt({ config: { agent: { build: { steps: 3 } } } as never })
    const model = tireless()
    await runTurn({ toolbelt: belt.toolbelt, model: { model, ...mock }, prompt: "go", steps: 5 })
    expect(model.doStreamCalls).toHaveLength(5)
  })
})

describe("InitContext.agent", () => {
  it("is the whole agent: name, mode, description, permission rules, steps", async () => {
    belt = await testBelt({
      config: { agent: { build: { steps: 7, description: "Builds things." } } } as never,
    })
    const seen: Record<string, unknown>[] = []
    belt.toolbelt.register({
      spy: Tool.define("spy", async (ctx) => {
        seen.push({ ...ctx?.agent })
        return {
          description: "Says which agent it was made for.",
          parameters: z.object({}),
          execute: async () => ({ title: "spy", output: "seen", metadata: {} }),
        }
      }),
    })
    const result = await belt.toolbelt.call({ tool: "spy", input: {}, sessionID: "ses_spy", agent: "build" })
    expect(result.status).toBe("completed")
    expect(seen[0]).toMatchObject({ name: "build", mode: "primary", description: "Builds things.", steps: 7 })
    expect(Array.isArray(seen[0]!.permission)).toBe(true)
  })
})

describe("attachments", () => {
  it("carry ids: their own, and the call's session and message", async () => {
    belt = await testBelt()
    belt.toolbelt.register({
      pixel: Tool.make({
        description: "Returns a picture.",
        input: z.object({}),
        execute: () => "iVBORw0KGgo=",
        toModelOutput: ({ output }) => [
          { type: "text", text: "a pixel" },
          { type: "media", mime: "image/png", data: output },
        ],
      }),
    })
    const result = await belt.toolbelt.call({
      tool: "pixel",
      input: {},
      sessionID: "ses_att",
      messageID: "msg_att",
    })
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    expect(result.attachments).toEqual([
      {
        type: "file",
        mime: "image/png",
        url: "data:image/png;base64,iVBORw0KGgo=",
        id: expect.stringMatching(/^prt_/),
        sessionID: "ses_att",
        messageID: "msg_att",
      },
    ])
  })
})

describe('"Not offered" in toolbelt tools', { timeout: 120_000 }, () => {
  it("lists skill (no skills found) and plan_exit (not in plan mode) with their reasons; plan lists plan_exit", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolbelt-not-offered-"))
    try {
      const home = join(root, "home")
      const project = join(root, "project")
      await mkdir(home)
      await mkdir(project)
      const tools = (...args: string[]) =>
        runCli(["tools", "--cwd", project, ...args], { cwd: project, home }).stdout
      const build = tools()
      const notOffered = build.slice(build.indexOf("\nNot offered:\n"))
      expect(notOffered).toMatch(/^skill +no Agent Skills were found: add a folder with a SKILL\.md/m)
      expect(notOffered).toMatch(/^plan_exit +plan_exit leaves plan mode, and this agent is not in it/m)
      const plan = tools("--agent", "plan")
      expect(plan).toMatch(/^plan_exit +\d+ /m)
      expect(plan.slice(plan.indexOf("\nNot offered:\n"))).not.toMatch(/^plan_exit /m)

      // A skill found: skill is offered, and no longer listed as not offered.
      await mkdir(join(project, ".opencode", "skill", "greet"), { recursive: true })
      await writeFile(
        join(project, ".opencode", "skill", "greet", "SKILL.md"),
        "---\nname: greet\ndescription: Greets people.\n---\nSay hello.\n",
      )
      const withSkill = tools("--trust")
      expect(withSkill).toMatch(/^skill +\d+ /m)
      expect(withSkill.slice(withSkill.indexOf("\nNot offered:\n"))).not.toMatch(/^skill /m)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
