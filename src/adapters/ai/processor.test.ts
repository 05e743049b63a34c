import type { TextStreamPart, ToolSet } from "ai"
import { afterEach, describe, expect, it } from "vitest"
import { internals } from "../../compose/internals.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import { Calls } from "./calls.ts"
import { type TestBelt, testBelt } from "./fixtures/toolbelt.ts"
import { StreamProcessor } from "./processor.ts"

let belt: TestBelt | undefined
afterEach(async () => {
  await belt?.close()
  belt = undefined
})

const SESSION = "ses_proc"
const MESSAGE = "msg_proc"
type Part = TextStreamPart<ToolSet>
const p = (part: Record<string, unknown>) => part as unknown as Part

async function setup(graceMs?: number) {
  belt = await testBelt()
  const calls = new Calls()
  const tools = { calls, sessionID: SESSION, messageID: MESSAGE, activeTools: ["echo", "read"] }
  const processor = new StreamProcessor({
    toolbelt: belt.toolbelt,
    tools,
    ...(graceMs === undefined ? {} : { graceMs }),
  })
  const events: ToolPart[] = []
  belt.toolbelt.subscribe("message.part.updated", (event) => {
    events.push(event.properties.part)
  })
  return { toolbelt: belt.toolbelt, calls, processor, events }
}

const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe("StreamProcessor", () => {
  it("creates a pending part on input start, grows raw with the deltas, stores the parsed input on the call", async () => {
    const { toolbelt, processor, events } = await setup()
    await processor.handle(p({ type: "start-step" }))
    await processor.handle(p({ type: "tool-input-start", id: "c1", toolName: "Read" }))
    // Stored at the end of this turn of the event loop.
    expect(internals(toolbelt).store.parts.get(SESSION, "c1")).toBeUndefined()
    await flush()
    const created = internals(toolbelt).store.parts.get(SESSION, "c1")!
    expect(created).toMatchObject({
      messageID: MESSAGE,
      tool: "read",
      state: { status: "pending", input: {}, raw: "" },
    })
    await processor.handle(p({ type: "tool-input-delta", id: "c1", delta: '{"filePath":' }))
    await processor.handle(p({ type: "tool-input-delta", id: "c1", delta: '"a.txt"}' }))
    // Deltas are published, stored once the input is complete.
    expect((internals(toolbelt).store.parts.get(SESSION, "c1")!.state as { raw: string }).raw).toBe("")
    await processor.handle(p({ type: "tool-input-end", id: "c1" }))
    await flush()
    expect(internals(toolbelt).store.parts.get(SESSION, "c1")!.state).toEqual({
      status: "pending",
      input: {},
      raw: '{"filePath":"a.txt"}',
    })
    await processor.handle(
      p({ type: "tool-call", toolCallId: "c1", toolName: "read", input: { filePath: "a.txt" } }),
    )
    await flush()
    expect(internals(toolbelt).store.parts.get(SESSION, "c1")).toMatchObject({
      id: created.id,
      state: { status: "pending", input: { filePath: "a.txt" }, raw: '{"filePath":"a.txt"}' },
    })
    await flush()
    expect(events.map((event) => (event.state as { raw: string }).raw)).toEqual([
      "",
      '{"filePath":',
      '{"filePath":"a.txt"}',
      '{"filePath":"a.txt"}',
      '{"filePath":"a.txt"}',
    ])
    expect(processor.steps).toEqual([{ text: "", calls: [{ callID: "c1", tool: "read" }] }])
  })

  it("records results of calls that never reached settlement (provider-executed, refused by the SDK, denied)", async () => {
    const { toolbelt, processor } = await setup()
    await processor.handle(
      p({ type: "tool-input-start", id: "web", toolName: "web_search", providerExecuted: true }),
    )
    await processor.handle(
      p({
        type: "tool-call",
        toolCallId: "web",
        toolName: "web_search",
        input: { q: "x" },
        providerExecuted: true,
      }),
    )
    await processor.handle(
      p({
        type: "tool-result",
        toolCallId: "web",
        toolName: "web_search",
        input: { q: "x" },
        output: { results: [1] },
      }),
    )
    await processor.handle(
      p({ type: "tool-call", toolCallId: "bad", toolName: "nope", input: "{", invalid: true, dynamic: true }),
    )
    await processor.handle(
      p({
        type: "tool-error",
        toolCallId: "bad",
        toolName: "nope",
        input: "{",
        error: "Model tried to call unavailable tool 'nope'.",
      }),
    )
    await processor.handle(p({ type: "tool-output-denied", toolCallId: "no", toolName: "echo" }))

    expect(internals(toolbelt).store.parts.get(SESSION, "web")!.state).toMatchObject({
      status: "completed",
      input: { q: "x" },
      output: '{"results":[1]}',
    })
    expect(internals(toolbelt).store.parts.get(SESSION, "bad")).toMatchObject({
      tool: "nope",
      state: { status: "error", error: "Model tried to call unavailable tool 'nope'." },
    })
    expect(internals(toolbelt).store.parts.get(SESSION, "no")!.state).toMatchObject({
      status: "error",
      error: "The user denied this tool call.",
    })
    expect(
      internals(toolbelt)
        .store.journal.entries(SESSION, "web")
        .map((entry) => entry.kind),
    ).toEqual(["finished"])
  })

  it("leaves a dispatched call to settlement: no write, however late the processor sees its parts", async () => {
    const { toolbelt, calls, processor } = await setup()
    // The SDK ran the call before the processor read its stream parts.
    const settlement = await calls.dispatch("c1", "echo", (entry) =>
      toolbelt.call({
        tool: "echo",
        input: { text: "hi" },
        sessionID: SESSION,
        messageID: MESSAGE,
        callID: "c1",
        partID: entry.partID,
      }),
    )
    const final = internals(toolbelt).store.parts.get(SESSION, "c1")!
    await processor.handle(p({ type: "tool-input-start", id: "c1", toolName: "echo" }))
    await processor.handle(p({ type: "tool-input-delta", id: "c1", delta: "{}" }))
    await processor.handle(p({ type: "tool-input-end", id: "c1" }))
    await processor.handle(
      p({ type: "tool-call", toolCallId: "c1", toolName: "echo", input: { text: "hi" } }),
    )
    await processor.handle(
      p({ type: "tool-result", toolCallId: "c1", toolName: "echo", input: {}, output: { output: "other" } }),
    )
    await processor.finish()
    expect(internals(toolbelt).store.parts.get(SESSION, "c1")).toEqual(final)
    expect(final.id).toBe(settlement.part.id)
    expect(
      internals(toolbelt)
        .store.journal.entries(SESSION, "c1")
        .map((entry) => entry.kind),
    ).toEqual(["requested", "started", "finished"])
  })

  it("continues its own pending part when the call is dispatched (one part, one id)", async () => {
    const { toolbelt, calls, processor } = await setup()
    await processor.handle(p({ type: "tool-input-start", id: "c1", toolName: "echo" }))
    await flush()
    const pending = internals(toolbelt).store.parts.get(SESSION, "c1")!
    await calls.dispatch("c1", "echo", (entry) =>
      toolbelt.call({
        tool: "echo",
        input: { text: "hi" },
        sessionID: SESSION,
        messageID: MESSAGE,
        callID: "c1",
        partID: entry.partID,
      }),
    )
    expect(internals(toolbelt).store.parts.list(SESSION)).toHaveLength(1)
    expect(internals(toolbelt).store.parts.get(SESSION, "c1")).toMatchObject({
      id: pending.id,
      state: { status: "completed" },
    })
  })

  it("at the end, marks calls still streaming as interrupted at once", async () => {
    // A grace period longer than the test's own timeout: finish() returning at all shows it did not wait.
    const { toolbelt, processor } = await setup(10 * 60_000)
    await processor.handle(p({ type: "tool-input-start", id: "c1", toolName: "echo" }))
    await processor.handle(p({ type: "abort" }))
    await processor.finish()
    expect(internals(toolbelt).store.parts.get(SESSION, "c1")!.state).toMatchObject({
      status: "error",
      error: "Tool execution aborted",
      metadata: { interrupted: true },
    })
    expect(processor.result().aborted).toBe(true)
  })

  it("waits for calls in flight, then interrupts the ones that did not finish; a late result cannot overwrite", async () => {
    const { toolbelt, calls, processor } = await setup(100)
    let finishLate!: (value: Settlement) => void
    // One call settles within the grace period, the other never does in time.
    void calls.dispatch("quick", "echo", (entry) =>
      new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() =>
        toolbelt.call({
          tool: "echo",
          input: { text: "q" },
          sessionID: SESSION,
          messageID: MESSAGE,
          callID: "quick",
          partID: entry.partID,
        }),
      ),
    )
    const late = calls.dispatch(
      "late",
      "echo",
      () =>
        new Promise<Settlement>((resolve) => {
          finishLate = resolve
        }),
    )
    await processor.handle(p({ type: "tool-input-start", id: "late", toolName: "echo" }))
    const started = Date.now()
    await processor.finish()
    expect(Date.now() - started).toBeGreaterThanOrEqual(90)
    expect(internals(toolbelt).store.parts.get(SESSION, "quick")!.state.status).toBe("completed")
    const interrupted = internals(toolbelt).store.parts.get(SESSION, "late")!
    expect(interrupted.state).toMatchObject({ status: "error", metadata: { interrupted: true } })

    // Settlement finishing afterwards is refused by the journal: the record stays interrupted.
    const completed = {
      ...interrupted,
      state: {
        status: "completed",
        input: {},
        output: "late",
        title: "",
        metadata: {},
        time: { start: 1, end: 2 },
      },
    } as ToolPart
    await expect(internals(toolbelt).store.journal.finished(completed)).rejects.toThrow(/already finished/)
    finishLate({
      status: "completed",
      title: "",
      output: "late",
      metadata: {},
      attachments: [],
      part: completed,
    })
    await late
    expect(internals(toolbelt).store.parts.get(SESSION, "late")).toEqual(interrupted)
  })

  it("collects each step's text and calls, the finish reason and the first error", async () => {
    const { processor } = await setup()
    const parts = [
      p({ type: "start-step" }),
      p({ type: "text-delta", id: "t", text: "Hello " }),
      p({ type: "text-delta", id: "t", text: "there" }),
      p({ type: "tool-call", toolCallId: "c1", toolName: "echo", input: { text: "x" } }),
      p({ type: "finish-step", finishReason: "tool-calls" }),
      p({ type: "start-step" }),
      p({ type: "text-delta", id: "t", text: "Bye" }),
      p({ type: "error", error: new Error("boom") }),
      p({ type: "finish", finishReason: "error" }),
    ]
    async function* stream() {
      yield* parts
    }
    const result = await processor.consume(stream())
    expect(result.steps).toEqual([
      { text: "Hello there", calls: [{ callID: "c1", tool: "echo" }], finishReason: "tool-calls" },
      { text: "Bye", calls: [] },
    ])
    expect(result.text).toBe("Bye")
    expect(result.finishReason).toBe("error")
    expect((result.error as Error).message).toBe("boom")
    expect(result.parts.map((part) => part.state.status)).toEqual(["error"])
  })
})
