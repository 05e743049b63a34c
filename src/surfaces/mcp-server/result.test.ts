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

  it("a cut structured value: the preview as structuredContent, what was cut beside it, never isError", () => {
    const structuredOutput = {
      truncated: true,
      outputPath: "/data/tool-output/x",
      originalSize: 6_000_000,
      truncatedSize: 50_000,
      cuts: [{ path: "items", kind: "array", kept: 10, total: 100_000 }],
    }
    const result = toCallToolResult(
      completed({
        output: "a summary",
        structured: { items: [1] },
        metadata: { truncated: false, structuredOutput },
      }),
      { structured: true },
    )
    expect(result.isError).toBeUndefined()
    expect(result.structuredContent).toEqual({ items: [1] })
    expect(result.content).toEqual([
      { type: "text", text: "a summary" },
      {
        type: "text",
        text: "The structured result (6000000 bytes) was cut to 50000 bytes to fit: items: first 10 of 100000 items. The whole is saved at /data/tool-output/x; read it (with offset and limit) or search it rather than asking for it all again.",
      },
    ])
  })

  it("a cut string output with an output schema: the cut text is the value, not an error", () => {
    const result = toCallToolResult(
      completed({ output: "preview…", metadata: { truncated: true, outputPath: "/data/tool-output/x" } }),
      { structured: true },
    )
    expect(result.isError).toBeUndefined()
    expect(result.structuredContent).toBe("preview…")
  })
})
