// createToolbelt({ceiling}): an agent every call is held to, whatever agent the call names. The tool
// list, the paging hint of a cut output and the calls themselves all follow it.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { Config } from "../runtime/config/config.ts"
import { createToolbelt, type Toolbelt } from "./toolbelt.ts"

let root: string | undefined
let open: Toolbelt | undefined
afterEach(async () => {
  await open?.close()
  open = undefined
  if (root) await rm(root, { recursive: true, force: true })
  root = undefined
})

async function belt(options: { ceiling?: string; config?: Config } = {}) {
  root = await mkdtemp(join(tmpdir(), "toolbelt-ceiling-"))
  open = await createToolbelt({
    directory: root,
    dataDir: join(root, ".data"),
    store: "memory",
    sweep: false,
    config: options.config ?? {},
    env: { PATH: process.env.PATH, HOME: root },
    ...(options.ceiling ? { ceiling: options.ceiling } : {}),
  })
  return open
}

// A custom agent that may do anything but read.
const noRead: Config = { agent: { "no-read": { permission: { read: "deny" } } } }
const longOutput = { command: "seq 1 5000", description: "count" }

describe("a ceiling agent", () => {
  it("hides what it denies from every agent's tools and from the paging hint of a cut output", async () => {
    const toolbelt = await belt({ ceiling: "no-read", config: noRead })
    const names = (await toolbelt.tools({ agent: "build" })).map((tool) => tool.name)
    expect(names).toContain("bash")
    expect(names).not.toContain("read")
    const cut = await toolbelt.call({ tool: "bash", input: longOutput, agent: "build" })
    expect(cut.status).toBe("completed")
    const output = cut.status === "completed" ? cut.output : ""
    expect(output).toContain("none that pages is offered here")
    expect(output).not.toContain('read {"filePath"')
    const read = await toolbelt.call({ tool: "read", input: { filePath: "x" }, agent: "build" })
    expect(read).toMatchObject({
      status: "error",
      error: expect.stringContaining("agent.no-read.permission"),
    })
  })

  it("without one, build reads and the hint names read", async () => {
    const toolbelt = await belt({ config: noRead })
    expect((await toolbelt.tools({ agent: "build" })).map((tool) => tool.name)).toContain("read")
    const cut = await toolbelt.call({ tool: "bash", input: longOutput, agent: "build" })
    expect(cut.status === "completed" ? cut.output : "").toContain('read {"filePath"')
  })

  it("an unknown ceiling fails at once, naming the agents", async () => {
    await expect(belt({ ceiling: "nobody" })).rejects.toThrow('Unknown agent "nobody". Available agents:')
  })
})
