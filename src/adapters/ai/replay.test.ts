import { describe, expect, it } from "vitest"
import { storedInput } from "../../platform/store/input-bounds.ts"
import type { MessageRecord } from "../../platform/store/messages.ts"
import type { ToolPart, ToolState } from "../../platform/store/part.ts"
import {
  INTERRUPTED_RESULT,
  replayCall,
  replayOutput,
  replayParts,
  replaySession,
  replayStep,
} from "./replay.ts"

const time = { start: 1, end: 2 }
function part(callID: string, state: ToolState, tool = "bash"): ToolPart {
  return { id: `prt_${callID}`, sessionID: "ses", messageID: "msg", type: "tool", callID, tool, state }
}

const completed = part("done", {
  status: "completed",
  input: { command: "ls" },
  output: "a\nb",
  title: "ls",
  metadata: {},
  time,
})
const failed = part("failed", { status: "error", input: { command: "x" }, error: "command not found", time })
const interruptedShell = part("cut", {
  status: "error",
  input: { command: "make" },
  error: "Tool execution aborted",
  metadata: { interrupted: true, output: "building…\nstep 1" },
  time,
})
const interruptedPlain = part("cut2", {
  status: "error",
  input: {},
  error: "Tool execution aborted",
  metadata: { interrupted: true },
  time,
})
const running = part("running", { status: "running", input: { command: "sleep 9" }, time: { start: 1 } })
const pending = part("pending", { status: "pending", input: {}, raw: '{"comm' })
const image = part(
  "img",
  {
    status: "completed",
    input: { filePath: "a.png" },
    output: "Image read",
    title: "a.png",
    metadata: {},
    time,
    attachments: [{ type: "file", mime: "image/png", url: "data:image/png;base64,AAAA" }],
  },
  "read",
)

describe("replayOutput", () => {
  it.each([
    ["completed → its output", completed, { type: "text", value: "a\nb" }],
    ["error → the error", failed, { type: "error-text", value: "command not found" }],
    [
      "interrupted shell → its partial output",
      interruptedShell,
      { type: "text", value: `building…\nstep 1\n\n${INTERRUPTED_RESULT}` },
    ],
    [
      "interrupted without output → the error",
      interruptedPlain,
      { type: "error-text", value: "Tool execution aborted" },
    ],
    ["running → interrupted", running, { type: "error-text", value: INTERRUPTED_RESULT }],
    ["pending → interrupted", pending, { type: "error-text", value: INTERRUPTED_RESULT }],
  ])("%s", (_name, input, expected) => {
    expect(replayOutput(input)).toEqual(expected)
  })

  it("replays images as media only where the provider takes them", () => {
    expect(replayOutput(image, { media: true })).toEqual({
      type: "content",
      value: [
        { type: "text", text: "Image read" },
        { type: "file", mediaType: "image/png", data: { type: "data", data: "AAAA" } },
      ],
    })
    expect(replayOutput(image)).toMatchObject({ type: "text", value: expect.stringContaining("not shown") })
  })
})

describe("replayParts", () => {
  it("gives every call a result, in call order", () => {
    const messages = replayParts([completed, running, pending])
    expect(messages).toEqual([
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "done", toolName: "bash", input: { command: "ls" } },
          { type: "tool-call", toolCallId: "running", toolName: "bash", input: { command: "sleep 9" } },
          { type: "tool-call", toolCallId: "pending", toolName: "bash", input: {} },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "done",
            toolName: "bash",
            output: { type: "text", value: "a\nb" },
          },
          {
            type: "tool-result",
            toolCallId: "running",
            toolName: "bash",
            output: { type: "error-text", value: INTERRUPTED_RESULT },
          },
          {
            type: "tool-result",
            toolCallId: "pending",
            toolName: "bash",
            output: { type: "error-text", value: INTERRUPTED_RESULT },
          },
        ],
      },
    ])
    expect(replayParts([])).toEqual([])
  })
})

describe("replaySession", () => {
  const record = (id: string, role: string, data: unknown): MessageRecord => ({
    id,
    sessionID: "ses",
    role,
    data,
    time: 1,
  })

  it("rebuilds the conversation step by step, including calls whose part was never stored", () => {
    const messages = replaySession(
      [
        record("m1", "user", { role: "user", text: "build it" }),
        record("m2", "assistant", {
          role: "assistant",
          steps: [
            {
              text: "Building.",
              calls: [
                { callID: "cut", tool: "bash" },
                { callID: "lost", tool: "write" },
              ],
            },
            { text: "It was interrupted.", calls: [] },
          ],
        }),
        record("m3", "user", { role: "user", text: "again" }),
      ],
      [interruptedShell],
    )
    expect(messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ])
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Building." },
        { type: "tool-call", toolCallId: "cut", toolName: "bash", input: { command: "make" } },
        { type: "tool-call", toolCallId: "lost", toolName: "write", input: {} },
      ],
    })
    expect(messages[2]).toMatchObject({
      content: [
        { toolCallId: "cut", output: { type: "text", value: expect.stringContaining("step 1") } },
        { toolCallId: "lost", output: { type: "error-text", value: INTERRUPTED_RESULT } },
      ],
    })
    expect(messages[3]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "It was interrupted." }],
    })
  })
})

describe("replayCall", () => {
  it("replays a large input as the journal kept it: its head and a note saying it was cut", () => {
    const content = "q".repeat(1_000_000)
    const stored = part(
      "big",
      {
        status: "error",
        input: storedInput({ filePath: "big.txt", content }),
        error: "Tool execution aborted",
        metadata: { interrupted: true },
        time,
      },
      "write",
    )
    const call = replayCall(stored)
    const input = call.input as { filePath: string; content: string }
    expect(input.filePath).toBe("big.txt")
    expect(input.content.length).toBeLessThan(2000)
    expect(input.content).toMatch(/stored by digest: the journal keeps the first 1024 of 1000000 characters/)
  })
})

describe("replayStep with the provider's content", () => {
  it("replays reasoning, text and calls in the order stored, with their metadata as providerOptions", () => {
    const read = part(
      "c1",
      { status: "completed", input: { filePath: "a" }, output: "A", title: "a", metadata: {}, time },
      "read",
    )
    const messages = replayStep(
      {
        text: "Reading.",
        calls: [
          { callID: "c1", tool: "read" },
          { callID: "lost", tool: "write" },
        ],
        content: [
          { type: "reasoning", text: "Think.", providerMetadata: { anthropic: { signature: "sig" } } },
          { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "opaque" } } },
          { type: "text", text: "" },
          { type: "text", text: "Reading.", providerMetadata: { openai: { itemId: "msg_1" } } },
          { type: "tool-call", callID: "c1", providerMetadata: { google: { thoughtSignature: "ts" } } },
        ],
      },
      [read],
    )
    expect(messages[0]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "Think.", providerOptions: { anthropic: { signature: "sig" } } },
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "opaque" } } },
        { type: "text", text: "Reading.", providerOptions: { openai: { itemId: "msg_1" } } },
        {
          type: "tool-call",
          toolCallId: "c1",
          toolName: "read",
          input: { filePath: "a" },
          providerOptions: { google: { thoughtSignature: "ts" } },
        },
        // Listed in calls but not in content: still replayed, after the rest, with an interrupted result.
        { type: "tool-call", toolCallId: "lost", toolName: "write", input: {} },
      ],
    })
    expect(messages[1]).toMatchObject({
      role: "tool",
      content: [
        { toolCallId: "c1", output: { type: "text", value: "A" } },
        { toolCallId: "lost", output: { type: "error-text", value: INTERRUPTED_RESULT } },
      ],
    })
  })
})
