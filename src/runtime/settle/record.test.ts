import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import type { ToolPart } from "../../platform/store/part.ts"
import { openStore, type Store } from "../../platform/store/store.ts"
import { DEFAULT_LIMITS } from "../../platform/text/limits.ts"
import { Bus } from "../bus/bus.ts"
import { OutputStore } from "../output/store.ts"
import { RulePermissions } from "../permission/simple.ts"
import { Registry } from "../registry/registry.ts"
import * as Tool from "../tool/index.ts"
import { internals } from "../tool/internal.ts"
import { journalSink, trailsReply } from "./record.ts"
import { type CallRequest, settle } from "./settle.ts"

let dir: string
let store: Store
let bus: Bus
let registry: Registry

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-record-"))
  store = openStore({ dataDir: dir })
  bus = new Bus()
  registry = new Registry()
})

afterEach(async () => {
  store.close()
  await rm(dir, { recursive: true, force: true })
})

const request = (tool: string, extra: Partial<CallRequest> = {}): CallRequest => ({
  tool,
  input: {},
  sessionID: "ses_r",
  messageID: "msg_r",
  agent: "build",
  callID: `call_${Math.random().toString(36).slice(2)}`,
  ...extra,
})

const deps = (also?: (part: ToolPart) => void) => ({
  registry,
  permission: new RulePermissions({ rules: [{ permission: "*", pattern: "*", action: "allow" as const }] }),
  store: new OutputStore({ dir: join(dir, "tool-output") }),
  limits: DEFAULT_LIMITS,
  parts: journalSink({ store, bus, ...(also ? { also } : {}) }),
})

/** The journal entry each part state is written as. */
const KIND = { pending: "requested", running: "started", completed: "finished", error: "finished" } as const

describe("the journal as a call's sink", () => {
  it("has the call on disk as running, in one commit, before its tool runs", async () => {
    let seen: { status?: string; commits: number } | undefined
    const before = store.journal.commits
    registry.register({
      touch: Tool.make({
        description: "t",
        input: z.object({}),
        annotations: { destructive: true },
        execute: (_, ctx) => {
          seen = {
            status: store.parts.get(ctx.sessionID, ctx.callID)?.state.status,
            commits: store.journal.commits - before,
          }
          return "done"
        },
      }),
    })
    const call = request("touch")
    const result = await settle(call, deps())
    expect(result).toMatchObject({ status: "completed", output: "done" })
    // requested and started shared one group commit, and both were durable when the tool ran.
    expect(seen).toEqual({ status: "running", commits: 1 })
    // When settle resolves, the final state is on disk.
    expect(store.parts.get(call.sessionID, call.callID)?.state.status).toBe("completed")
  })

  it("publishes each step only once it is in the journal, in order", async () => {
    const published: { status: string; journaled: string[] }[] = []
    registry.register({
      touch: Tool.make({
        description: "t",
        input: z.object({}),
        execute: (_, ctx) => {
          ctx.metadata({ title: "half" })
          return "done"
        },
      }),
    })
    const call = request("touch")
    await settle(
      call,
      deps((part) => {
        const journaled = store.journal.entries(part.sessionID, part.callID).map((entry) => entry.kind)
        published.push({ status: part.state.status, journaled })
      }),
    )
    expect(published.map((step) => step.status)).toEqual(["pending", "running", "running", "completed"])
    for (const step of published) expect(step.journaled).toContain(KIND[step.status as keyof typeof KIND])
  })

  it("publishes on the bus what it journaled", async () => {
    const events: string[] = []
    const finished = new Promise<void>((resolve) =>
      bus.subscribe("message.part.updated", (event) => {
        events.push(event.properties.part.state.status)
        if (event.properties.part.state.status === "completed") resolve()
      }),
    )
    registry.register({ touch: Tool.make({ description: "t", input: z.object({}), execute: () => "done" }) })
    await settle(request("touch"), deps())
    await finished
    expect(events).toEqual(["pending", "running", "completed"])
  })
})

describe("trailsReply: when a record may trail the reply", () => {
  const tool = (annotations: Tool.Annotations) =>
    internals(Tool.make({ description: "t", input: z.object({}), annotations, execute: () => "" }))

  it.each([
    ["a read-only call whose caller replies at once", { readOnly: true }, true, true],
    ["a read-only call whose caller waits", { readOnly: true }, false, false],
    ["a call with side effects, even when the caller replies at once", { destructive: true }, true, false],
    ["a call that says nothing about its effects", {}, true, false],
  ])("%s", (_, annotations, recordAfterReply, trails) => {
    expect(trailsReply(request("t", { recordAfterReply }), tool(annotations))).toBe(trails)
  })
})
