// A subagent is never more permissive than the session that started it: real task calls through the
// agent loop, with the AI SDK's mock model, on a real project in a temp dir.
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, step, text } from "../adapters/ai/fixtures/mock-model.ts"
import { runTurn } from "../adapters/ai/loop.ts"
import type { Config } from "../runtime/config/config.ts"
import type { AskRequest } from "../runtime/permission/service.ts"
import { routedModel } from "../tools/task/fixtures/routed-model.ts"
import { internals } from "./internals.ts"
import { createToolbelt, type Toolbelt } from "./toolbelt.ts"

const ids = { providerID: "mock", modelID: "mock-model" }
let root: string | undefined
let open: Toolbelt | undefined

afterEach(async () => {
  await open?.close()
  open = undefined
  if (root) await rm(root, { recursive: true, force: true })
  root = undefined
})

/** A toolbelt on a fresh project where no one can be asked: every ask the rules leave open is refused. */
async function belt(options: { config?: Config; trust?: boolean; files?: Record<string, string> } = {}) {
  root = await mkdtemp(join(tmpdir(), "toolbelt-subagent-policy-"))
  const project = join(root, "project")
  await mkdir(project)
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(join(project, path, ".."), { recursive: true })
    await writeFile(join(project, path), content)
  }
  const asked: AskRequest[] = []
  open = await createToolbelt({
    directory: project,
    dataDir: join(root, "data"),
    store: "memory",
    sweep: false,
    ...(options.config ? { config: options.config } : {}),
    ...(options.trust ? { trust: true } : {}),
    env: { PATH: process.env.PATH, HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") },
    decide: async (request) => {
      asked.push(request)
      return { unanswered: "no terminal in this test" }
    },
  })
  return { toolbelt: open, project, asked }
}

/** The parent starts `agent` with task; the child runs `touch x` in the shell. */
const touchThroughTask = (agent: string) =>
  routedModel({
    parent: [
      step(call("t1", "task", { description: "make x", prompt: "Create the file x", subagent_type: agent })),
      step(text("parent done")),
    ],
    child: [step(call("b1", "bash", { command: "touch x", description: "make x" })), step(text("made x"))],
  })

describe("subagents get the intersection with their parent", () => {
  it("a parent whose bash asks: general (bash allowed by its own rules) is asked too, and with no one to ask, nothing runs", async () => {
    const { toolbelt, project, asked } = await belt({
      config: { permission: { doom_loop: "allow" }, agent: { build: { permission: { bash: "ask" } } } },
    })
    const result = await runTurn({
      toolbelt,
      model: { ...ids, model: touchThroughTask("general") },
      prompt: "go",
    })
    expect(existsSync(join(project, "x"))).toBe(false)
    expect(asked.map((request) => [request.agent, request.permission])).toEqual([["general", "bash"]])
    expect(result.status).toBe("blocked")
  })

  it("a repository's subagent with bash: allow cannot shed the user's bash: ask, trusted or not", async () => {
    for (const trust of [false, true]) {
      const { toolbelt, project, asked } = await belt({
        trust,
        config: { permission: { doom_loop: "allow", bash: "ask" } },
        files: {
          ".toolbelt/agents/runner.md":
            "---\ndescription: Runs commands\nmode: subagent\npermission:\n  bash: allow\n---\nRun it.\n",
        },
      })
      await runTurn({ toolbelt, model: { ...ids, model: touchThroughTask("runner") }, prompt: "go" })
      expect(existsSync(join(project, "x"))).toBe(false)
      expect(asked.map((request) => [request.agent, request.permission])).toEqual([["runner", "bash"]])
      await open?.close()
      open = undefined
      await rm(root!, { recursive: true, force: true })
    }
  })

  it("a parent's deny holds in the child, naming the parent's rule; what both allow runs", async () => {
    const { toolbelt, project } = await belt({
      config: {
        permission: { doom_loop: "allow" },
        agent: { build: { permission: { bash: { "touch *": "deny" } } } },
      },
    })
    await runTurn({ toolbelt, model: { ...ids, model: touchThroughTask("general") }, prompt: "go" })
    expect(existsSync(join(project, "x"))).toBe(false)
    const child = internals(toolbelt)
      .store.sessions.list({ parentID: undefined })
      .find((session) => session.parentID)!
    expect(internals(toolbelt).store.parts.get(child.id, "b1")?.state).toMatchObject({
      status: "error",
      error: expect.stringContaining('agent.build.permission.bash["touch *"]'),
    })

    // Nothing restricts touch for build: the child runs it.
    const { toolbelt: free, project: other } = await belt({ config: { permission: { doom_loop: "allow" } } })
    await runTurn({ toolbelt: free, model: { ...ids, model: touchThroughTask("general") }, prompt: "go" })
    expect(existsSync(join(other, "x"))).toBe(true)
  })
})
