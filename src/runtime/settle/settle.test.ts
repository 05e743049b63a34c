import { execFileSync } from "node:child_process"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import type { ToolPart } from "../../platform/store/part.ts"
import { DEFAULT_LIMITS } from "../../platform/text/limits.ts"
import { OutputStore } from "../output/store.ts"
import { RulePermissions } from "../permission/simple.ts"
import { Registry } from "../registry/registry.ts"
import * as Tool from "../tool/index.ts"
import { type CallRequest, type PartStep, type SettleDeps, settle } from "./settle.ts"

let dir: string
let parts: ToolPart[]
let registry: Registry
let deps: SettleDeps

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-settle-"))
  parts = []
  registry = new Registry()
  deps = {
    registry,
    permission: new RulePermissions({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
    store: new OutputStore({ dir: join(dir, "tool-output") }),
    limits: DEFAULT_LIMITS,
    parts: (part) => {
      parts.push(part)
    },
  }
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const call = (tool: string, input: unknown, extra: Partial<CallRequest> = {}): CallRequest => ({
  tool,
  input,
  sessionID: "ses_1",
  messageID: "msg_1",
  agent: "build",
  callID: `call_${Math.random().toString(36).slice(2)}`,
  ...extra,
})

const statuses = () => parts.map((part) => part.state.status)

describe("validation", () => {
  it("never runs the handler on invalid input, and says exactly what is wrong", async () => {
    let ran = false
    registry.register({
      read: Tool.make({
        description: "read",
        input: z.object({ filePath: z.string(), offset: z.number().int().optional() }),
        execute: () => {
          ran = true
          return "x"
        },
      }),
    })
    const result = await settle(call("read", { offset: "ten" }), deps)
    expect(ran).toBe(false)
    expect(result.status).toBe("error")
    if (result.status !== "error") return
    expect(result.kind).toBe("invalid")
    expect(result.error).toMatch(/^The read tool was called with invalid arguments: /)
    expect(result.error).toContain("filePath: ")
    expect(result.error).toContain("offset: ")
    expect(result.error.endsWith(".\nPlease rewrite the input so it satisfies the expected schema.")).toBe(
      true,
    )
    expect(statuses()).toEqual(["pending", "error"])
  })

  it("names nested paths readably", async () => {
    registry.register({
      question: Tool.make({
        description: "q",
        input: z.object({ questions: z.array(z.object({ question: z.string() })) }),
        execute: () => "",
      }),
    })
    const result = await settle(call("question", { questions: [{ question: 1 }] }), deps)
    expect(result.status === "error" && result.error).toContain("questions[0].question: ")
  })

  it("says a left-out field is required and missing, for the tool's own formatter too", async () => {
    const seen: string[] = []
    registry.register({
      lsp: Tool.make({
        description: "lsp",
        input: z.object({ operation: z.enum(["hover", "documentSymbol"]), filePath: z.string() }),
        execute: () => "",
      }),
      edit: Tool.define("edit", {
        description: "edit",
        parameters: z.object({ filePath: z.string() }),
        execute: async () => ({ title: "", output: "", metadata: {} }),
        formatValidationError: (error) => {
          seen.push(...error.issues.map((issue) => issue.message))
          return "custom"
        },
      }),
    })
    const result = await settle(call("lsp", { filePath: 1 }), deps)
    expect(result.status === "error" && result.error).toContain(
      'operation: required, but missing (expected one of "hover"|"documentSymbol"); filePath: Invalid input: expected string, received number',
    )
    await settle(call("edit", {}), deps)
    expect(seen).toEqual(["required, but missing (expected string)"])
  })

  it("refuses a field the schema would drop unread, naming it and the fields there are; the tool never runs", async () => {
    let ran = false
    registry.register({
      read: Tool.make({
        description: "read",
        input: z.object({
          filePath: z.string(),
          offset: z.number().optional(),
          edits: z.array(z.object({ oldString: z.string() })).optional(),
          loose: z.looseObject({}).optional(),
        }),
        execute: () => {
          ran = true
          return "x"
        },
      }),
    })
    const result = await settle(
      call("read", { filePath: "a", ofset: 5, edits: [{ oldString: "x", old: 1 }], loose: { any: 1 } }),
      deps,
    )
    expect(ran).toBe(false)
    expect(result.status === "error" && result.kind).toBe("invalid")
    expect(result.status === "error" && result.error).toContain(
      "ofset: not a parameter of this tool (the ones it takes are filePath, offset, edits, loose; remove it or use one of those); " +
        "edits[0].old: not a field of this object (the ones it takes are oldString; remove it or use one of those)",
    )
    registry.register({ todoread: Tool.make({ description: "t", input: z.object({}), execute: () => "[]" }) })
    const none = await settle(call("todoread", { all: true }), deps)
    expect(none.status === "error" && none.error).toContain(
      "all: not a parameter of this tool (it takes none; remove it)",
    )
  })

  it("uses the tool's own formatValidationError", async () => {
    registry.register({
      edit: Tool.define("edit", {
        description: "edit",
        parameters: z.object({ filePath: z.string() }),
        execute: async () => ({ title: "", output: "", metadata: {} }),
        formatValidationError: (error) => `custom: ${error.issues.length} issue(s)`,
      }),
    })
    const result = await settle(call("edit", {}), deps)
    expect(result.status === "error" && result.error).toBe("custom: 1 issue(s)")
  })

  it("never reports success for output that fails the output schema", async () => {
    registry.register({
      count: Tool.make({
        description: "count",
        input: z.object({}),
        output: z.object({ n: z.number() }),
        execute: () => ({ n: "three" }) as unknown as { n: number },
      }),
    })
    const result = await settle(call("count", {}), deps)
    expect(result.status).toBe("error")
    expect(result.status === "error" && result.error).toMatch(/invalid value for its output schema: n: /)
    expect(parts.at(-1)!.state.status).toBe("error")
  })
})

describe("codec boundary", () => {
  it("execution sees decoded input; projection sees encoded output", async () => {
    const isoDate = z.codec(z.iso.datetime(), z.date(), {
      decode: (s) => new Date(s),
      encode: (d) => d.toISOString(),
    })
    let seenByExecute: unknown
    let seenByProjection: unknown
    registry.register({
      later: Tool.make({
        description: "adds a day",
        input: z.object({ when: isoDate }),
        output: z.object({ next: isoDate }),
        execute: ({ when }) => {
          seenByExecute = when
          return { next: new Date(when.getTime() + 86_400_000) }
        },
        toModelOutput: ({ output }) => {
          seenByProjection = output.next
          return [{ type: "text", text: `next: ${output.next}` }]
        },
      }),
    })
    const result = await settle(call("later", { when: "2026-01-01T00:00:00.000Z" }), deps)
    expect(seenByExecute).toBeInstanceOf(Date)
    expect(seenByProjection).toBe("2026-01-02T00:00:00.000Z")
    expect(result.status === "completed" && result.output).toBe("next: 2026-01-02T00:00:00.000Z")
  })
})

describe("failures", () => {
  it("a ToolFailure is model-visible with its message", async () => {
    registry.register({
      fail: Tool.make({
        description: "fails",
        input: z.object({}),
        execute: () => {
          throw new Tool.ToolFailure("File not found: /x", { metadata: { tried: ["/x"] } })
        },
      }),
    })
    const result = await settle(call("fail", {}), deps)
    expect(result).toMatchObject({ status: "error", kind: "failure", error: "File not found: /x" })
    expect(result.metadata).toEqual({ tried: ["/x"] })
  })

  it("a defect is recorded with its stack and shown as a short error", async () => {
    const defects: unknown[] = []
    registry.register({
      buggy: Tool.make({
        description: "bug",
        input: z.object({}),
        execute: () => {
          const value: any = undefined
          return value.property
        },
      }),
    })
    const result = await settle(call("buggy", {}), { ...deps, onDefect: (error) => defects.push(error) })
    expect(result.status).toBe("error")
    if (result.status !== "error") return
    expect(result.kind).toBe("defect")
    expect(result.error).toMatch(/Cannot read properties of undefined/)
    expect(result.error).not.toContain("\n    at ")
    const state = parts.at(-1)!.state
    expect(state.status === "error" && (state.metadata?.stack as string)).toContain("settle.test.ts")
    expect(state.status === "error" && state.metadata?.defect).toBe(true)
    await new Promise((r) => setTimeout(r, 0))
    expect(defects).toHaveLength(1)
  })

  it("a permission denial reaches the model, a rejection also blocks the turn", async () => {
    registry.register({
      shell: Tool.make({
        description: "sh",
        input: z.object({ command: z.string() }),
        execute: async ({ command }, ctx) => {
          await ctx.ask({ permission: "bash", patterns: [command] })
          return "ran"
        },
      }),
    })
    const denying = new RulePermissions({
      rules: [
        { permission: "*", pattern: "*", action: "allow" },
        { permission: "bash", pattern: "rm *", action: "deny" },
        { permission: "bash", pattern: "git push *", action: "ask" },
      ],
      decide: async () => "reject",
    })
    const denied = await settle(call("shell", { command: "rm -rf /" }), { ...deps, permission: denying })
    expect(denied).toMatchObject({ status: "error", kind: "permission", blocked: false })
    expect(denied.status === "error" && denied.error).toMatch(
      /prevents you from using this specific tool call/,
    )
    const rejected = await settle(call("shell", { command: "git push origin" }), {
      ...deps,
      permission: denying,
    })
    expect(rejected).toMatchObject({ status: "error", kind: "permission", blocked: true })
    const allowed = await settle(call("shell", { command: "ls" }), { ...deps, permission: denying })
    expect(allowed.status).toBe("completed")
  })
})

describe("abort", () => {
  it("is an interruption, never a success, even when the tool swallows it and returns", async () => {
    const controller = new AbortController()
    registry.register({
      stubborn: Tool.make({
        description: "ignores aborts",
        input: z.object({}),
        execute: async (_input, ctx) => {
          ctx.metadata({ metadata: { output: "partial line" } })
          controller.abort()
          try {
            await new Promise((_, reject) =>
              ctx.abort.addEventListener("abort", () => reject(new Error("aborted"))),
            )
          } catch {
            // a broad catch inside the tool: it must not turn the abort into a result
          }
          return "pretend success"
        },
      }),
    })
    const result = await settle(call("stubborn", {}, { abort: controller.signal }), deps)
    expect(result).toMatchObject({ status: "error", kind: "interrupted", error: "Tool execution aborted" })
    const last = parts.at(-1)!.state
    expect(last.status).toBe("error")
    expect(last.status === "error" && last.metadata).toMatchObject({
      interrupted: true,
      output: "partial line",
    })
  })

  it("returns after the grace period when the tool never finishes", async () => {
    const controller = new AbortController()
    registry.register({
      hang: Tool.make({
        description: "hangs",
        input: z.object({}),
        execute: () => new Promise<string>(() => {}),
      }),
    })
    setTimeout(() => controller.abort(), 10)
    const result = await settle(call("hang", {}, { abort: controller.signal }), { ...deps, abortGraceMs: 20 })
    expect(result).toMatchObject({ status: "error", kind: "interrupted" })
  })

  it("does not run the tool when already aborted", async () => {
    let ran = false
    registry.register({
      t: Tool.make({
        description: "t",
        input: z.object({}),
        execute: () => {
          ran = true
          return ""
        },
      }),
    })
    const result = await settle(call("t", {}, { abort: AbortSignal.abort() }), deps)
    expect(ran).toBe(false)
    expect(result).toMatchObject({ status: "error", kind: "interrupted" })
  })

  it("a throw after abort is an interruption, not a defect", async () => {
    const controller = new AbortController()
    registry.register({
      t: Tool.make({
        description: "t",
        input: z.object({}),
        execute: () => {
          controller.abort()
          throw new Tool.ToolFailure("process killed")
        },
      }),
    })
    const result = await settle(call("t", {}, { abort: controller.signal }), deps)
    expect(result).toMatchObject({ status: "error", kind: "interrupted" })
  })
})

describe("resolution", () => {
  it("an unknown tool gets an explicit error listing the available tools (never `invalid`)", async () => {
    registry.register({
      read: Tool.make({ description: "r", input: z.object({}), execute: () => "" }),
      glob: Tool.make({ description: "g", input: z.object({}), execute: () => "" }),
      invalid: Tool.make({
        description: "i",
        input: z.object({}),
        execute: () => "",
        available: () => false,
      }),
    })
    const result = await settle(call("reed", {}), deps)
    expect(result).toMatchObject({
      status: "error",
      kind: "unknown",
      error: "Model tried to call unavailable tool 'reed'. Available tools: read, glob.",
    })
  })

  it("repairs a name differing only in case", async () => {
    registry.register({
      read: Tool.make({ description: "r", input: z.object({}), execute: () => "content" }),
    })
    const result = await settle(call("Read", {}), deps)
    expect(result).toMatchObject({ status: "completed", output: "content" })
  })

  it("stale rejection: a replaced registration is not run for an older turn", async () => {
    let ran = ""
    const version = (label: string) =>
      Tool.make({
        description: label,
        input: z.object({}),
        execute: () => {
          ran = label
          return label
        },
      })
    registry.register({ echo: version("v1") })
    const turn = registry.turn(await registry.tools())
    registry.register({ echo: version("v2") })
    const result = await settle(call("echo", {}, { turn }), deps)
    expect(result).toMatchObject({ status: "error", kind: "stale" })
    expect(ran).toBe("")
    // the new turn runs the new registration
    const fresh = await settle(call("echo", {}, { turn: registry.turn(await registry.tools()) }), deps)
    expect(fresh).toMatchObject({ status: "completed", output: "v2" })
  })

  it("stale rejection also covers closing an overlay that reveals the previous registration", async () => {
    registry.register({
      echo: Tool.make({ description: "base", input: z.object({}), execute: () => "base" }),
    })
    const overlay = registry.register({
      echo: Tool.make({ description: "overlay", input: z.object({}), execute: () => "overlay" }),
    })
    const turn = registry.turn(await registry.tools())
    overlay.close()
    const result = await settle(call("echo", {}, { turn }), deps)
    expect(result).toMatchObject({ status: "error", kind: "stale" })
  })

  it("a name not advertised in the turn is unknown even if registered later", async () => {
    const turn = registry.turn(await registry.tools())
    registry.register({ late: Tool.make({ description: "l", input: z.object({}), execute: () => "" }) })
    const result = await settle(call("late", {}, { turn }), deps)
    expect(result).toMatchObject({ status: "error", kind: "unknown" })
  })

  it("captured execution: replacing the registration mid-call does not affect the running call", async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    registry.register({
      slow: Tool.make({
        description: "v1",
        input: z.object({}),
        execute: async () => {
          await gate
          return "v1 result"
        },
      }),
    })
    const turn = registry.turn(await registry.tools())
    const running = settle(call("slow", {}, { turn }), deps)
    await new Promise((r) => setTimeout(r, 10))
    registry.register({
      slow: Tool.make({ description: "v2", input: z.object({}), execute: () => "v2 result" }),
    })
    release()
    expect(await running).toMatchObject({ status: "completed", output: "v1 result" })
  })
})

describe("durable identity and lifecycle", () => {
  it("uses exactly the runner's ids in the context, the part and the permission request", async () => {
    let seen: Tool.Context | undefined
    const asked: unknown[] = []
    registry.register({
      who: Tool.make({
        description: "w",
        input: z.object({ q: z.string() }),
        execute: async (_input, ctx) => {
          seen = ctx
          await ctx.ask({ permission: "who", patterns: ["x"] })
          return "ok"
        },
      }),
    })
    const permission = {
      evaluate: () => "allow" as const,
      ask: async (request: unknown) => {
        asked.push(request)
      },
    }
    const request = call(
      "who",
      { q: "a" },
      { sessionID: "ses_A", messageID: "msg_B", agent: "plan", callID: "call_C" },
    )
    await settle(request, { ...deps, permission })
    expect(seen).toMatchObject({ sessionID: "ses_A", messageID: "msg_B", agent: "plan", callID: "call_C" })
    expect(asked[0]).toMatchObject({
      sessionID: "ses_A",
      agent: "plan",
      permission: "who",
      patterns: ["x"],
      always: ["x"],
      tool: { messageID: "msg_B", callID: "call_C", name: "who" },
    })
    for (const part of parts)
      expect(part).toMatchObject({ sessionID: "ses_A", messageID: "msg_B", callID: "call_C" })
    expect(new Set(parts.map((p) => p.id)).size).toBe(1)
  })

  it("moves the part forward only: pending → running (progress) → completed, keeping time.start", async () => {
    registry.register({
      progress: Tool.make({
        description: "p",
        input: z.object({}),
        execute: async (_input, ctx) => {
          ctx.metadata({ title: "step 1", metadata: { n: 1 } })
          await new Promise((r) => setTimeout(r, 5))
          ctx.metadata({ metadata: { n: 2 } })
          return "done"
        },
      }),
    })
    const result = await settle(call("progress", {}), deps)
    expect(statuses()).toEqual(["pending", "running", "running", "running", "completed"])
    const starts = parts.slice(1).map((p) => (p.state as { time: { start: number } }).time.start)
    expect(new Set(starts).size).toBe(1)
    expect(parts[3]!.state).toMatchObject({ title: "step 1", metadata: { n: 2 } })
    expect(result).toMatchObject({ status: "completed", title: "step 1" })
  })

  it("a v1 tool's result keeps its title, metadata and attachments", async () => {
    registry.register({
      img: Tool.define("img", {
        description: "img",
        parameters: z.object({}),
        execute: async () => ({
          title: "pic.png",
          output: "Image read successfully",
          metadata: { kind: "image" },
          attachments: [{ type: "file", mime: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" }],
        }),
      }),
    })
    const result = await settle(call("img", {}), deps)
    expect(result).toMatchObject({
      status: "completed",
      title: "pic.png",
      output: "Image read successfully",
      metadata: { kind: "image", truncated: false },
      attachments: [{ type: "file", mime: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" }],
    })
  })
})

describe("when the record is written", () => {
  /** An ordered sink whose writes (after `pending`) wait until `release()`, or fail with `fail()`. */
  function gatedSink() {
    const seen: string[] = []
    /** The states handed over as riding (`PartStep.rides`): nobody waits for them. */
    const riding: string[] = []
    const gates: { resolve: () => void; reject: (error: Error) => void }[] = []
    const sink = Object.assign(
      (part: ToolPart, step?: PartStep) => {
        seen.push(part.state.status)
        if (step?.rides) riding.push(part.state.status)
        if (part.state.status === "pending") return undefined
        return new Promise<void>((resolve, reject) => gates.push({ resolve, reject }))
      },
      { ordered: true },
    )
    return {
      sink,
      seen,
      riding,
      release: () => {
        for (const gate of gates.splice(0)) gate.resolve()
      },
      fail: (error: Error) => {
        for (const gate of gates.splice(0)) gate.reject(error)
      },
    }
  }

  /** Whether `promise` settles while the event loop turns a few times. */
  async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
    let done = false
    void promise.then(
      () => (done = true),
      () => (done = true),
    )
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    return done
  }

  const register = (annotations: Tool.Annotations) =>
    registry.register({
      look: Tool.make({
        description: "l",
        input: z.object({}),
        annotations,
        execute: () => "seen",
      }),
    })

  it("by default a call waits for its start and its result to be recorded", async () => {
    register({})
    const gated = gatedSink()
    const settling = settle(call("look", {}), { ...deps, parts: gated.sink })
    expect(await settlesSoon(settling)).toBe(false)
    expect(gated.seen).toEqual(["pending", "running"]) // the tool has not run: its start is not recorded
    expect(gated.riding).toEqual(["pending"]) // the request rides with the start
    gated.release()
    await new Promise((resolve) => setImmediate(resolve))
    expect(gated.seen).toEqual(["pending", "running", "completed"])
    expect(await settlesSoon(settling)).toBe(false) // nor returned before its result is recorded
    gated.release()
    expect(await settling).toMatchObject({ status: "completed", output: "seen" })
  })

  it("a read-only call's start rides with its result, which is recorded before it returns", async () => {
    register({ readOnly: true })
    const gated = gatedSink()
    const settling = settle(call("look", {}), { ...deps, parts: gated.sink })
    expect(await settlesSoon(settling)).toBe(false)
    // The tool ran without waiting for its start to be written: all three were handed over.
    expect(gated.seen).toEqual(["pending", "running", "completed"])
    expect(gated.riding).toEqual(["pending", "running"])
    gated.release()
    expect(await settling).toMatchObject({ status: "completed", output: "seen" })
  })

  it("a read-only call whose start could not be recorded fails when its result is recorded", async () => {
    register({ readOnly: true })
    const gated = gatedSink()
    const settling = settle(call("look", {}), { ...deps, parts: gated.sink })
    expect(await settlesSoon(settling)).toBe(false)
    gated.fail(new Error("disk full"))
    await expect(settling).rejects.toThrow("disk full")
  })

  it("a read-only call with recordAfterReply returns before its record is written", async () => {
    register({ readOnly: true })
    const gated = gatedSink()
    const settling = settle(call("look", {}, { recordAfterReply: true }), { ...deps, parts: gated.sink })
    expect(await settlesSoon(settling)).toBe(true)
    expect(await settling).toMatchObject({ status: "completed", output: "seen" })
    // Every state was handed over, in order, without waiting for the earlier ones to be written.
    expect(gated.seen).toEqual(["pending", "running", "completed"])
    gated.release()
  })

  it("a call with side effects records before it runs and before it returns, even with recordAfterReply", async () => {
    register({ destructive: true })
    const gated = gatedSink()
    const settling = settle(call("look", {}, { recordAfterReply: true }), { ...deps, parts: gated.sink })
    expect(await settlesSoon(settling)).toBe(false)
    expect(gated.seen).toEqual(["pending", "running"])
    gated.release()
    await new Promise((resolve) => setImmediate(resolve))
    expect(await settlesSoon(settling)).toBe(false)
    gated.release()
    expect(await settling).toMatchObject({ status: "completed" })
  })

  it("a trailing record that fails is reported; the result stands", async () => {
    register({ readOnly: true })
    const gated = gatedSink()
    const reported: unknown[] = []
    const result = await settle(call("look", {}, { recordAfterReply: true }), {
      ...deps,
      parts: gated.sink,
      onRecordError: (error) => reported.push(error),
    })
    expect(result).toMatchObject({ status: "completed", output: "seen" })
    gated.fail(new Error("disk full"))
    await new Promise((resolve) => setImmediate(resolve))
    expect(reported.map(String)).toEqual(["Error: disk full"])
  })
})

describe("bounding", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")

  it("bounds long output, stores all of it, and points at the rest", async () => {
    let projected = ""
    registry.register({
      big: Tool.make({
        description: "big",
        input: z.object({}),
        execute: () => lines(5000),
        toModelOutput: ({ output }) => {
          projected = output
          return [{ type: "text", text: output }]
        },
      }),
    })
    const result = await settle(call("big", {}), deps)
    // storage encapsulation: the domain output and its projection are complete
    expect(projected).toBe(lines(5000))
    expect(result.status).toBe("completed")
    if (result.status !== "completed") return
    expect(result.metadata.truncated).toBe(true)
    const file = result.metadata.outputPath as string
    expect(await readFile(file, "utf8")).toBe(lines(5000))
    expect(result.output).toContain("line 2000\n")
    expect(result.output).not.toContain("line 2001\n")
    expect(result.output).toContain("...3000 lines truncated...")
    expect(result.output).toContain(file)
  })

  it("honours per-call limits and the tail direction", async () => {
    registry.register({
      big: Tool.make({ description: "big", input: z.object({}), execute: () => lines(100) }),
    })
    const result = await settle(call("big", {}, { bounding: { maxLines: 10, direction: "tail" } }), deps)
    expect(result.status === "completed" && result.output).toContain("...90 lines truncated...")
    expect(result.status === "completed" && result.output.endsWith("line 100")).toBe(true)
  })

  it("passes a self-bounded v1 result through untouched", async () => {
    registry.register({
      own: Tool.define("own", {
        description: "own",
        parameters: z.object({}),
        execute: async () => ({ title: "", output: lines(3000), metadata: { truncated: false } }),
      }),
    })
    const result = await settle(call("own", {}), deps)
    expect(result.status === "completed" && result.output).toBe(lines(3000))
    expect(await readdir(dir)).toEqual([])
  })

  it("fails the call when the full output cannot be stored", async () => {
    await writeFile(join(dir, "blocker"), "a file where the store directory should be")
    registry.register({
      big: Tool.make({ description: "big", input: z.object({}), execute: () => lines(5000) }),
    })
    const result = await settle(call("big", {}), {
      ...deps,
      store: new OutputStore({ dir: join(dir, "blocker", "out") }),
    })
    expect(result).toMatchObject({ status: "error", kind: "output" })
    expect(result.status === "error" && result.error).toMatch(/could not be saved/)
  })

  it("writes nothing for output within the limits", async () => {
    registry.register({
      small: Tool.make({ description: "s", input: z.object({}), execute: () => lines(10) }),
    })
    const result = await settle(call("small", {}), deps)
    expect(result).toMatchObject({ status: "completed", output: lines(10), metadata: { truncated: false } })
    expect(await readdir(dir)).toEqual([])
  })
})

describe("odd input", () => {
  const echo = () => {
    let ran = false
    registry.register({
      echo: Tool.make({
        description: "echo",
        input: z.object({ x: z.unknown() }),
        execute: () => {
          ran = true
          return "ran"
        },
      }),
    })
    return () => ran
  }

  it("refuses input nested 200,000 levels deep with a validation error, and records it bounded", async () => {
    const ran = echo()
    const input = JSON.parse(`{"x":${"[".repeat(200_000)}${"]".repeat(200_000)}}`)
    const result = await settle(call("echo", input), deps)
    expect(ran()).toBe(false)
    expect(result.status).toBe("error")
    if (result.status !== "error") return
    expect(result.kind).toBe("invalid")
    expect(result.error).toMatch(/nested more than 512 levels deep/)
    expect(statuses()).toEqual(["pending", "error"])
    // The recorded part can be serialised: what is too deep is stored as a marker.
    expect(JSON.stringify(parts.at(-1)).length).toBeLessThan(20_000)
  })

  /** A tool that reads `filePath` in the test's directory. */
  const opener = () =>
    registry.register({
      open: Tool.make({
        description: "open",
        input: z.object({ filePath: z.string() }),
        execute: async ({ filePath }) => {
          await readFile(join(dir, filePath))
          return "read"
        },
      }),
    })

  it("reports a NUL byte in a path as invalid input, not a defect", async () => {
    const defects: unknown[] = []
    opener()
    const result = await settle(call("open", { filePath: "a\u0000b" }), {
      ...deps,
      onDefect: (error) => defects.push(error),
    })
    expect(result.status).toBe("error")
    if (result.status !== "error") return
    expect(result.kind).toBe("invalid")
    expect(result.metadata.defect).toBeUndefined()
    expect(result.error).toContain(JSON.stringify(join(dir, "a\u0000b")))
    expect(result.error).toMatch(/contains a NUL byte/)
    expect(defects).toEqual([])
  })

  it("reports a path or program arguments the system refuses as too long as invalid input, not a defect", async () => {
    const defects: unknown[] = []
    opener()
    registry.register({
      run: Tool.make({
        description: "run",
        input: z.object({ argument: z.string() }),
        execute: ({ argument }) => {
          execFileSync("true", [argument])
          return "ran"
        },
      }),
    })
    const guarded = { ...deps, onDefect: (error: unknown) => defects.push(error) }
    const path = await settle(call("open", { filePath: "x".repeat(300_000) }), guarded)
    expect(path).toMatchObject({ status: "error", kind: "invalid" })
    expect(path.status === "error" && path.error).toMatch(
      /^The open tool was given a path of 3\d\d,\d{3} characters, longer than the system allows/,
    )
    const argv = await settle(call("run", { argument: "x".repeat(300_000) }), guarded)
    expect(argv).toMatchObject({ status: "error", kind: "invalid" })
    expect(argv.status === "error" && argv.error).toMatch(
      /^The run tool could not start its program: the arguments/,
    )
    expect(defects).toEqual([])
  })

  it("shortens an error that echoes a huge value, in what the model gets and what is recorded", async () => {
    registry.register({
      find: Tool.make({
        description: "find",
        input: z.object({ name: z.string() }),
        execute: ({ name }) => {
          throw new Tool.ToolFailure(`Skill "${name}" not found. Available skills: demo.`)
        },
      }),
    })
    const result = await settle(call("find", { name: "x".repeat(5_000_000) }), deps)
    expect(result.status === "error" && result.error).toMatch(
      /^Skill "x+…\[4,999,\d{3} characters cut\]…x+" not found\. Available skills: demo\.$/,
    )
    expect(result.status === "error" && result.error.length).toBeLessThan(1000)
    const recorded = parts.at(-1)!.state
    expect(recorded.status === "error" && recorded.error).toBe(result.status === "error" && result.error)
  })

  it("records a large input bounded while the tool receives it whole", async () => {
    let received = ""
    registry.register({
      put: Tool.make({
        description: "put",
        input: z.object({ content: z.string() }),
        execute: ({ content }) => {
          received = content
          return "ok"
        },
      }),
    })
    const content = "z".repeat(10_000_000)
    const result = await settle(call("put", { content }), deps)
    expect(result.status).toBe("completed")
    expect(received).toBe(content)
    for (const part of parts) expect(JSON.stringify(part).length).toBeLessThan(10_000)
    const pending = parts[0]!.state
    expect(pending.status === "pending" && pending.raw.length).toBeLessThan(10_000)
  })
})
