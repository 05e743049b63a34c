import { hostname } from "node:os"
import { isStepCount, streamText } from "ai"
import { afterEach, describe, expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import { type Chunk, call, scripted, step, text } from "./fixtures/mock-model.ts"
import { type TestBelt, testBelt } from "./fixtures/toolbelt.ts"
import { sessionHistory } from "./history.ts"
import { runTurn } from "./loop.ts"
import { StreamProcessor } from "./processor.ts"
import { toAISDKTools } from "./tools.ts"

let belt: TestBelt | undefined
afterEach(async () => {
  await belt?.close()
  belt = undefined
})

const mock = { providerID: "mock", modelID: "mock-model" }
const RANK = { pending: 0, running: 1, completed: 2, error: 2 } as const

/** Every `message.part.updated` event, per part id, in order. */
function recordBus(toolbelt: TestBelt["toolbelt"]): Map<string, ToolPart[]> {
  const byPart = new Map<string, ToolPart[]>()
  toolbelt.subscribe("message.part.updated", (event) => {
    const part = event.properties.part
    byPart.set(part.id, [...(byPart.get(part.id) ?? []), part])
  })
  return byPart
}

async function settleBus(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe("the AI SDK loop with the toolbelt's tools (mock model, real parts)", () => {
  it("runs valid calls, repairs a wrong-case name, sends bad calls to invalid, and reports them all", async () => {
    belt = await testBelt()
    const { toolbelt } = belt
    const bus = recordBus(toolbelt)
    const ai = await toAISDKTools({ toolbelt, sessionID: "ses_loop", messageID: "msg_loop", model: mock })
    const model = scripted([
      step(
        text("Let me try a few things."),
        call("ok", "echo", { text: "hi" }),
        call("case", "ECHO", { text: "loud" }),
        call("shape", "echo", { text: 5 }),
        call("unknown", "teleport", { to: "mars" }),
        call("json", "echo", '{"text": "unterminated', { stream: false }),
      ),
      step(call("again", "echo", { text: "step two" })),
      step(text("All done.")),
    ])
    const result = streamText({
      model: ai.wrap(model),
      tools: ai.tools,
      repairToolCall: ai.repairToolCall,
      stopWhen: [isStepCount(10), ai.stopWhen],
      prompt: "go",
    })
    const processed = await new StreamProcessor({ toolbelt, tools: ai }).consume(result.stream)
    await settleBus()

    expect(processed.text).toBe("All done.")
    expect(processed.steps.map((s) => s.calls.map((c) => `${c.callID}:${c.tool}`))).toEqual([
      ["ok:echo", "case:echo", "shape:echo", "unknown:teleport", "json:echo"],
      ["again:echo"],
      [],
    ])
    expect(belt.runs.echo).toBe(3)

    const stored = Object.fromEntries(
      internals(toolbelt)
        .store.parts.list("ses_loop")
        .map((part) => [part.callID, part]),
    )
    expect(stored.ok?.state).toMatchObject({ status: "completed", output: "hi", input: { text: "hi" } })
    expect(stored.case).toMatchObject({ tool: "echo", state: { status: "completed", output: "loud" } })
    expect(stored.shape?.state).toMatchObject({
      status: "error",
      error: expect.stringContaining("The echo tool was called with invalid arguments: text:"),
    })
    expect(stored.unknown).toMatchObject({
      tool: "teleport",
      state: {
        status: "completed",
        input: { tool: "teleport", error: expect.stringContaining("unavailable tool 'teleport'") },
        output: expect.stringContaining("The arguments provided to the tool are invalid"),
      },
    })
    expect(stored.json).toMatchObject({
      tool: "echo",
      state: {
        status: "completed",
        input: { tool: "echo", error: expect.stringContaining("JSON parsing failed") },
      },
    })

    // The model saw a result for every call, the bad ones as errors it can read.
    const prompt = JSON.stringify(model.doStreamCalls[1]!.prompt)
    for (const callID of ["ok", "case", "shape", "unknown", "json"])
      expect(prompt).toContain(`"toolCallId":"${callID}"`)
    expect(prompt).toContain("unavailable tool 'teleport'")
    expect(prompt).toContain('"type":"error-text","value":"The echo tool was called with invalid arguments')
    // `invalid` is never offered.
    for (const request of model.doStreamCalls)
      expect(request.tools!.map((tool) => tool.name)).not.toContain("invalid")

    // One part per call; on the bus each part starts pending and only moves forward; ends as stored.
    expect(internals(toolbelt).store.parts.list("ses_loop")).toHaveLength(6)
    for (const part of internals(toolbelt).store.parts.list("ses_loop")) {
      const events = bus.get(part.id)!
      expect(events[0]!.state.status).toBe("pending")
      const ranks = events.map((event) => RANK[event.state.status])
      expect(ranks).toEqual([...ranks].sort())
      expect(events.at(-1)).toEqual(part)
    }
    // Streamed input: the pending part's raw text grew delta by delta before the call ran.
    const okEvents = bus.get(stored.ok!.id)!
    expect(
      okEvents
        .filter((event) => event.state.status === "pending")
        .map((event) => (event.state as { raw: string }).raw),
    ).toContain('{"text":"hi"}')
    // The journal recorded each call once: requested, started (when it ran), finished.
    const kinds = internals(toolbelt)
      .store.journal.entries("ses_loop", "ok")
      .map((entry) => entry.kind)
    expect(kinds).toEqual(["requested", "started", "finished"])
  })

  it("stops the turn when the doom-loop guard's ask is denied", async () => {
    belt = await testBelt({ config: { permission: { doom_loop: "deny" } } })
    const model = scripted([1, 2, 3, 4, 5].map((i) => step(call(`same-${i}`, "echo", { text: "again" }))))
    const turn = await runTurn({ toolbelt: belt.toolbelt, model: { model, ...mock }, prompt: "loop" })

    expect(turn.status).toBe("blocked")
    expect(turn.error).toContain(
      'The loop guard stopped this call: echo {"text":"again"}: it was the 3rd identical call in a row',
    )
    expect(belt.runs.echo).toBe(2)
    expect(model.doStreamCalls).toHaveLength(3)
    expect(turn.parts.map((part) => part.state.status)).toEqual(["completed", "completed", "error"])
    expect(turn.parts[2]!.state).toMatchObject({ metadata: { doomLoop: true } })
  })

  it("with doom_loop allowed the same calls go on", async () => {
    belt = await testBelt({ config: { permission: { doom_loop: "allow" } } })
    const model = scripted([1, 2, 3, 4].map((i) => step(call(`same-${i}`, "echo", { text: "again" }))))
    const turn = await runTurn({ toolbelt: belt.toolbelt, model: { model, ...mock }, prompt: "loop" })
    expect(turn.status).toBe("finished")
    expect(belt.runs.echo).toBe(4)
  })

  it("an abort mid-call interrupts the running call and keeps its partial output", async () => {
    belt = await testBelt()
    const abort = new AbortController()
    belt.toolbelt.subscribe("message.part.updated", (event) => {
      const { part } = event.properties
      if (part.tool === "slow" && part.state.status === "running" && part.state.title) abort.abort()
    })
    const model = scripted([step(call("slow-1", "slow", {}), call("quick", "echo", { text: "fast" }))])
    // The slow tool waits for its abort signal and nothing else: the turn ending at all proves the abort.
    const turn = await runTurn({
      toolbelt: belt.toolbelt,
      model: { model, ...mock },
      prompt: "wait",
      abort: abort.signal,
    })

    expect(turn.status).toBe("aborted")
    const slow = internals(belt.toolbelt).store.parts.get(turn.sessionID, "slow-1")!
    expect(slow.state).toMatchObject({
      status: "error",
      error: "Tool execution aborted",
      metadata: { interrupted: true, output: "partial line 1\n" },
    })
    expect(internals(belt.toolbelt).store.parts.get(turn.sessionID, "quick")!.state.status).toBe("completed")
    expect(internals(belt.toolbelt).store.parts.open(turn.sessionID)).toEqual([])
  })

  it("a stream that fails while a call is still streaming leaves no open part", async () => {
    belt = await testBelt()
    const failing: Chunk[] = [
      { type: "tool-input-start", id: "cut", toolName: "echo" },
      { type: "tool-input-delta", id: "cut", delta: '{"text":' },
      { type: "error", error: new Error("connection reset") },
    ]
    const { convertArrayToReadableStream, MockLanguageModelV4 } = await import("ai/test")
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream(failing) }),
    })
    const turn = await runTurn({ toolbelt: belt.toolbelt, model: { model, ...mock }, prompt: "x" })
    expect(turn.status).toBe("failed")
    expect(turn.error).toContain("connection reset")
    const part = internals(belt.toolbelt).store.parts.get(turn.sessionID, "cut")!
    expect(part.state).toMatchObject({
      status: "error",
      error: "Tool execution aborted",
      metadata: { interrupted: true },
    })
    expect(belt.runs.echo).toBeUndefined()
  })

  it("a second turn replays the first: every call with its result", async () => {
    belt = await testBelt()
    const first = scripted([
      step(text("Echoing."), call("c1", "echo", { text: "remember me" })),
      step(text("Echoed.")),
    ])
    const one = await runTurn({ toolbelt: belt.toolbelt, model: { model: first, ...mock }, prompt: "first" })
    expect(one.status).toBe("finished")
    // The session says which host runs it (a fleet lists sessions by host).
    expect(internals(belt.toolbelt).store.sessions.get(one.sessionID)).toMatchObject({ host: hostname() })

    const second = scripted([step(text("I remember."))])
    const two = await runTurn({
      toolbelt: belt.toolbelt,
      model: { model: second, ...mock },
      prompt: "second",
      sessionID: one.sessionID,
    })
    expect(two.status).toBe("finished")
    expect(two.sessionID).toBe(one.sessionID)
    const prompt = second.doStreamCalls[0]!.prompt.filter((message) => message.role !== "system")
    expect(prompt.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"])
    expect(JSON.stringify(prompt[2])).toContain("remember me")
    expect(JSON.stringify(prompt.at(-1))).toContain("second")
  })
  it("gives a loop of one's own the same history from the public toolbelt (sessionHistory)", async () => {
    belt = await testBelt()
    const first = scripted([
      step(text("Echoing."), call("c1", "echo", { text: "remember me" })),
      step(text("Echoed.")),
    ])
    const one = await runTurn({ toolbelt: belt.toolbelt, model: { model: first, ...mock }, prompt: "first" })
    const history = sessionHistory(belt.toolbelt, one.sessionID)
    expect(history.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"])
    expect(JSON.stringify(history[2])).toContain("remember me")
    expect(sessionHistory(belt.toolbelt, "ses_never")).toEqual([])
  })
})
