import { describe, expect, it } from "vitest"
import { EMPTY_ERROR, errorText, modelContent } from "./content.ts"

describe("modelContent", () => {
  it.each([
    [
      "text blocks, in order",
      {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
    ],
    [
      "an image as media",
      { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
      [{ type: "media", mime: "image/png", data: "AAAA" }],
    ],
    [
      "audio as media",
      { content: [{ type: "audio", data: "BBBB", mimeType: "audio/wav" }] },
      [{ type: "media", mime: "audio/wav", data: "BBBB" }],
    ],
    [
      "an embedded text resource as its text",
      {
        content: [{ type: "resource", resource: { uri: "file:///a.txt", text: "inside" } }],
      },
      [{ type: "text", text: "inside" }],
    ],
    [
      "an embedded blob with a MIME type as media",
      {
        content: [
          { type: "resource", resource: { uri: "file:///a.pdf", mimeType: "application/pdf", blob: "CCCC" } },
        ],
      },
      [{ type: "media", mime: "application/pdf", data: "CCCC" }],
    ],
    [
      "an embedded blob without a MIME type as a note",
      {
        content: [{ type: "resource", resource: { uri: "file:///a.bin", blob: "CCCC" } }],
      },
      [{ type: "text", text: "[binary resource file:///a.bin]" }],
    ],
    [
      "a resource link as a line",
      {
        content: [{ type: "resource_link", uri: "file:///r", name: "r", description: "a file" }],
      },
      [{ type: "text", text: "Resource r <file:///r>: a file" }],
    ],
    [
      "an unknown block as a note",
      { content: [{ type: "hologram" }] },
      [{ type: "text", text: "[unsupported MCP content: hologram]" }],
    ],
    [
      "structuredContent when there is no text",
      { content: [], structuredContent: { n: 1 } },
      [{ type: "text", text: '{\n  "n": 1\n}' }],
    ],
    [
      "structuredContent before media when there is no text",
      {
        content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
        structuredContent: [1],
      },
      [
        { type: "text", text: "[\n  1\n]" },
        { type: "media", mime: "image/png", data: "AAAA" },
      ],
    ],
    [
      "the text, not structuredContent, when there is text",
      {
        content: [{ type: "text", text: "n is 1" }],
        structuredContent: { n: 1 },
      },
      [{ type: "text", text: "n is 1" }],
    ],
    ["nothing for an empty result", { content: [] }, []],
  ])("maps %s", (_, result, expected) => {
    expect(modelContent(result)).toEqual(expected)
  })
})

describe("errorText", () => {
  it("is the text of the result, or opencode's wording when there is none", () => {
    expect(errorText({ content: [{ type: "text", text: "no such repo" }], isError: true })).toBe(
      "no such repo",
    )
    expect(errorText({ content: [], isError: true })).toBe(EMPTY_ERROR)
    expect(errorText({ content: [{ type: "text", text: "  " }], isError: true })).toBe(EMPTY_ERROR)
    expect(errorText({ content: [{ type: "image", data: "A", mimeType: "image/png" }], isError: true })).toBe(
      EMPTY_ERROR,
    )
  })
})
