// The public object and its internals: a library user holds the narrow object (register, subscribe,
// replies, call); the parts behind it are reached through `internals`, and the AI SDK adapter finds its
// host from the public object alone.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { z } from "zod"
import { hostOf } from "../adapters/ai/host.ts"
import { toAISDKTools } from "../adapters/ai/tools.ts"
import type { AnyEvent } from "../runtime/bus/bus.ts"
import * as Tool from "../runtime/tool/index.ts"
import { bareToolbelt } from "./fixtures/bare-toolbelt.ts"
import { internals } from "./internals.ts"
import type { Toolbelt } from "./toolbelt.ts"

let dir: string
let toolbelt: Toolbelt

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-internals-"))
  toolbelt = await bareToolbelt(dir, join(dir, ".data"))
})

afterAll(async () => {
  await toolbelt.close()
  await rm(dir, { recursive: true, force: true })
})

it("keeps the store, bus, registry and the other parts off the public object", () => {
  const members = Object.keys(toolbelt)
  for (const part of ["store", "bus", "hooks", "registry", "output", "limits", "policy", "toolSearch"])
    expect(members).not.toContain(part)
  // The replies are views: the engine's approvals and the question service's asks are not on them.
  expect(Object.keys(toolbelt.permission).sort()).toEqual(["list", "reply"])
  expect(Object.keys(toolbelt.questions).sort()).toEqual(["list", "reject", "reply"])
  expect(internals(toolbelt).permission.approvals()).toEqual([])
})

it("registers a tool, calls it and tells a subscriber, through the public object alone", async () => {
  const events: AnyEvent[] = []
  const stop = toolbelt.subscribe("*", (event) => {
    events.push(event)
  })
  const handle = toolbelt.register({
    greet: Tool.make({
      description: "Greets someone.",
      input: z.object({ name: z.string().describe("who to greet") }),
      execute: ({ name }) => `hello ${name}`,
    }),
  })
  const result = await toolbelt.call({ tool: "greet", input: { name: "ada" }, sessionID: "ses_pub" })
  expect(result).toMatchObject({ status: "completed", output: "hello ada" })
  await internals(toolbelt).bus.idle()
  stop()
  const states = events.flatMap((event) =>
    event.type === "message.part.updated" ? [event.properties.part.state.status] : [],
  )
  expect(states.at(-1)).toBe("completed")
  // The internals see the same registration and the same record.
  expect(internals(toolbelt).registry.resolve("greet")?.source).toBeDefined()
  expect(
    internals(toolbelt)
      .store.parts.list("ses_pub")
      .map((part) => part.tool),
  ).toEqual(["greet"])
  handle.close()
  expect(internals(toolbelt).registry.resolve("greet")).toBeUndefined()
})

it("gives the AI SDK adapter its host from the public object, and refuses anything else", async () => {
  expect(hostOf(toolbelt).store).toBe(internals(toolbelt).store)
  const ai = await toAISDKTools({
    toolbelt,
    sessionID: "ses_ai",
    messageID: "msg_ai",
    model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
  })
  expect(Object.keys(ai.tools)).toContain("read")
  const lookalike = { directory: dir, tools: toolbelt.tools, call: toolbelt.call }
  expect(() => hostOf(lookalike)).toThrow(/needs a toolbelt made by createToolbelt/)
  expect(() => internals(lookalike)).toThrow(/Not a toolbelt made by createToolbelt/)
})
