import { describe, expect, it } from "vitest"
import { StepLog } from "./step-log.ts"

describe("StepLog", () => {
  it("keeps reasoning, text and calls in order with the provider's metadata, the last given winning", () => {
    const log = new StepLog()
    log.start()
    log.block("reasoning", "r1", { metadata: undefined })
    log.block("reasoning", "r1", { text: "Think" })
    log.block("reasoning", "r1", { text: "ing.", metadata: { anthropic: { signature: "sig" } } })
    log.endBlock("reasoning", "r1", undefined)
    log.block("reasoning", "r2", { metadata: { anthropic: { redactedData: "opaque" } } })
    log.endBlock("reasoning", "r2", undefined)
    log.block("text", "t1", {})
    log.block("text", "t1", { text: "Reading." })
    log.endBlock("text", "t1", undefined)
    log.note("c1", "read")
    log.callMetadata("c1", { google: { thoughtSignature: "ts" } })
    log.note("c2", "read")

    expect(log.steps).toEqual([
      {
        text: "Reading.",
        calls: [
          { callID: "c1", tool: "read" },
          { callID: "c2", tool: "read" },
        ],
        content: [
          { type: "reasoning", text: "Thinking.", providerMetadata: { anthropic: { signature: "sig" } } },
          { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "opaque" } } },
          { type: "text", text: "Reading." },
          { type: "tool-call", callID: "c1", providerMetadata: { google: { thoughtSignature: "ts" } } },
          { type: "tool-call", callID: "c2" },
        ],
      },
    ])
  })

  it("leaves a step of plain text and calls without content (text then calls is the whole step)", () => {
    const log = new StepLog()
    log.start()
    log.block("text", "t", { text: "Hi." })
    log.endBlock("text", "t", undefined)
    log.note("c", "bash")
    log.callMetadata("c", {})
    expect(log.steps).toEqual([{ text: "Hi.", calls: [{ callID: "c", tool: "bash" }] }])
  })

  it("a block id used again in a later step starts a new block there", () => {
    const log = new StepLog()
    log.start()
    log.block("reasoning", "0", { text: "first", metadata: { openai: { itemId: "rs_1" } } })
    log.start()
    log.block("reasoning", "0", { text: "second", metadata: { openai: { itemId: "rs_2" } } })
    expect(log.steps.map((step) => step.content)).toEqual([
      [{ type: "reasoning", text: "first", providerMetadata: { openai: { itemId: "rs_1" } } }],
      [{ type: "reasoning", text: "second", providerMetadata: { openai: { itemId: "rs_2" } } }],
    ])
  })
})
