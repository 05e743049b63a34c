import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
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
import { lookTool } from "./fixtures/look-tool.ts"
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

  it("has a read-only call requested, started and finished in one commit, on disk before it returns", async () => {
    registry.register({ look: lookTool() })
    const events: string[] = []
    bus.subscribe("message.part.updated", (event) => {
      events.push(event.properties.part.state.status)
    })
    const call = request("look")
    const before = store.journal.commits
    const result = await settle(call, deps())
    expect(result).toMatchObject({ status: "completed", output: "seen" })
    expect(store.journal.commits - before).toBe(1)
    // Another connection sees the whole record the moment settle resolved.
    const peer = openStore({ path: store.path })
    try {
      expect(peer.parts.get(call.sessionID, call.callID)?.state.status).toBe("completed")
      expect(peer.journal.entries(call.sessionID, call.callID).map((entry) => entry.kind)).toEqual([
        "requested",
        "started",
        "finished",
      ])
    } finally {
      peer.close()
    }
    await bus.idle()
    expect(events).toEqual(["pending", "running", "completed"])
  })

  it("has a read-only call that is still running on disk as running, without a commit of its own asked for", async () => {
    const { promise: released, resolve: release } = Promise.withResolvers<string>()
    registry.register({
      wait: Tool.make({
        description: "w",
        input: z.object({}),
        annotations: { readOnly: true },
        execute: () => released,
      }),
    })
    const call = request("wait")
    const settling = settle(call, deps())
    // The deferred steps commit on their own shortly (DEFER_MS) when nothing else commits.
    const peer = openStore({ path: store.path })
    try {
      while (peer.parts.get(call.sessionID, call.callID)?.state.status !== "running")
        await new Promise((resolve) => setTimeout(resolve, 5))
    } finally {
      peer.close()
    }
    release("done")
    await expect(settling).resolves.toMatchObject({ status: "completed", output: "done" })
  })

  it("commits a lone read-only call answered first (recordAfterReply) once the process is quiet, its steps in one commit", async () => {
    registry.register({
      look: Tool.make({
        description: "l",
        input: z.object({}),
        annotations: { readOnly: true },
        execute: () => "seen",
      }),
    })
    // The group commit's DEFER_MS timer stays still: only the quiet process commits.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })
    try {
      const shared = deps()
      for (const call of [
        request("look", { recordAfterReply: true }),
        request("look", { recordAfterReply: true }),
      ]) {
        const before = store.journal.commits
        await expect(settle(call, shared)).resolves.toMatchObject({ status: "completed" })
        // Answered before it was written; committed two turns of the loop later.
        expect(store.journal.commits - before).toBe(0)
        await new Promise((resolve) => setImmediate(resolve))
        await new Promise((resolve) => setImmediate(resolve))
        expect(store.journal.commits - before).toBe(1)
        expect(store.parts.get(call.sessionID, call.callID)?.state).toMatchObject({
          status: "completed",
          output: "seen",
        })
      }
    } finally {
      vi.useRealTimers()
    }
  })

  it("lets read-only calls answered first while others are in flight share one commit", async () => {
    const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()]
    let next = 0
    registry.register({
      look: Tool.make({
        description: "l",
        input: z.object({}),
        annotations: { readOnly: true },
        execute: async () => {
          await gates[next++]!.promise
          return "seen"
        },
      }),
    })
    // The group commit's DEFER_MS timer stays still: only the calls decide when they commit.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })
    try {
      const shared = deps()
      const before = store.journal.commits
      const [first, second] = [
        settle(request("look", { recordAfterReply: true }), shared),
        settle(request("look", { recordAfterReply: true }), shared),
      ]
      gates[0]!.resolve()
      await expect(first).resolves.toMatchObject({ status: "completed" })
      for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve))
      // The second call is still open: the first one's record waits to ride with it.
      expect(store.journal.commits - before).toBe(0)
      gates[1]!.resolve()
      await expect(second).resolves.toMatchObject({ status: "completed" })
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve))
      expect(store.journal.commits - before).toBe(1)
      expect(store.parts.list("ses_r").map((part) => part.state.status)).toEqual(["completed", "completed"])
    } finally {
      vi.useRealTimers()
    }
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

describe("a kill -9 during a read-only call (a real process)", () => {
  const caller = join(import.meta.dirname, "fixtures", "read-only-caller.ts")

  /** Runs the caller until `hang` started, then until `until` holds, kills it; the store's recovery. */
  async function killWhileHanging(until: () => Promise<void>) {
    store.close()
    const path = join(dir, "killed.db")
    const child = spawn(process.execPath, [caller, path], { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_, signal) => resolve(signal)),
    )
    const lines: string[] = []
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(line)
      if (line === "running call_hang") break
    }
    await until()
    child.kill("SIGKILL")
    const signal = await exited
    if (signal !== "SIGKILL") throw new Error(`the caller exited on its own (${signal}): ${stderr}`)
    expect(lines).toEqual(["settled call_look", "running call_hang"])
    store = openStore({ path })
    const recovered = store.journal.recover()
    return { path, recovered }
  }

  it("leaves a call that had settled completed, and one whose start was on disk interrupted", async () => {
    const { recovered } = await killWhileHanging(async () => {
      const peer = openStore({ path: join(dir, "killed.db") })
      try {
        while (peer.parts.get("ses_kill", "call_hang")?.state.status !== "running")
          await new Promise((resolve) => setTimeout(resolve, 5))
      } finally {
        peer.close()
      }
    })
    expect(store.parts.get("ses_kill", "call_look")?.state).toMatchObject({
      status: "completed",
      output: "seen",
    })
    expect(recovered.interrupted.map((part) => part.callID)).toEqual(["call_hang"])
    expect(store.parts.get("ses_kill", "call_hang")?.state).toMatchObject({
      status: "error",
      metadata: { interrupted: true },
    })
    expect(store.journal.entries("ses_kill", "call_hang").map((entry) => entry.kind)).toEqual([
      "requested",
      "started",
      "interrupted",
    ])
  })

  it("leaves a call killed as it started either unrecorded or interrupted, never finished", async () => {
    const { recovered } = await killWhileHanging(async () => {})
    expect(store.parts.get("ses_kill", "call_look")?.state.status).toBe("completed")
    const hang = store.parts.get("ses_kill", "call_hang")
    if (hang) {
      expect(recovered.interrupted.map((part) => part.callID)).toEqual(["call_hang"])
      expect(hang.state).toMatchObject({ status: "error", metadata: { interrupted: true } })
    } else expect(store.journal.entries("ses_kill", "call_hang")).toEqual([])
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
