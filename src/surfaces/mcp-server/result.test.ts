import { describe, expect, it } from "vitest"
import type { ToolPart } from "../../platform/store/part.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import { toCallToolResult } from "./result.ts"

const part = {} as ToolPart

function completed(overrides: Partial<Extract<Settlement, { status: "completed" }>> = {}): Settlement {
  return {
    status: "completed",
    title: "t",
    output: "the output",
    metadata: { truncated: false },
    attachments: [],
    part,
    ...overrides,
  }
}

describe("toCallToolResult", () => {
  it("an error: its text, isError", () => {
    const settlement: Settlement = {
      status: "error",
      error: "this tool always fails",
      kind: "failure",
      blocked: false,
      metadata: {},
      part,
    }
    expect(toCallToolResult(settlement, { structured: false })).toEqual({
      content: [{ type: "text", text: "this tool always fails" }],
      isError: true,
    })
    expect(toCallToolResult(settlement, { structured: false, error: "why, and how to allow it" })).toEqual({
      content: [{ type: "text", text: "why, and how to allow it" }],
      isError: true,
    })
  })

  it("completed: the model-facing text", () => {
    expect(toCallToolResult(completed(), { structured: false })).toEqual({
      content: [{ type: "text", text: "the output" }],
    })
  })

  it("attachments: images and audio as such, other data as embedded resources, other URLs as links", () => {
    const result = toCallToolResult(
      completed({
        attachments: [
          { type: "file", mime: "image/png", url: "data:image/png;base64,iVBOR" },
          { type: "file", mime: "audio/wav", url: "data:audio/wav;base64,UklG" },
          {
            type: "file",
            mime: "application/pdf",
            url: "data:application/pdf;base64,JVBE",
            filename: "a b.pdf",
          },
          { type: "file", mime: "text/plain", url: "file:///tmp/notes.txt", filename: "notes.txt" },
        ],
      }),
      { structured: false },
    )
    expect(result.content).toEqual([
      { type: "text", text: "the output" },
      { type: "image", data: "iVBOR", mimeType: "image/png" },
      { type: "audio", data: "UklG", mimeType: "audio/wav" },
      {
        type: "resource",
        resource: { uri: "attachment:///a%20b.pdf", mimeType: "application/pdf", blob: "JVBE" },
      },
      { type: "resource_link", uri: "file:///tmp/notes.txt", name: "notes.txt", mimeType: "text/plain" },
    ])
  })

  it("structured output only for a tool that declares an output schema", () => {
    const settlement = completed({ structured: { letters: 3 } })
    expect(toCallToolResult(settlement, { structured: false }).structuredContent).toBeUndefined()
    expect(toCallToolResult(settlement, { structured: true }).structuredContent).toEqual({ letters: 3 })
  })

  it("a string output with an output schema: the text is the value", () => {
    expect(toCallToolResult(completed(), { structured: true }).structuredContent).toBe("the output")
  })

  it("a cut result with an output schema: an error that says where the full output is", () => {
    const result = toCallToolResult(
      completed({ output: "preview…", metadata: { truncated: true, outputPath: "/data/tool-output/x" } }),
      { structured: true },
    )
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    expect(result.content).toEqual([
      { type: "text", text: "preview…" },
      {
        type: "text",
        text: "The structured result was too large to return, so only the text above is sent. The full output is saved at /data/tool-output/x.",
      },
    ])
  })
})
