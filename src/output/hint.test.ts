import { describe, expect, it } from "vitest"
import { hint } from "./hint.ts"

const saved = "The tool call succeeded but the output was truncated. Full output saved to: /d/tool_x"

describe("hint", () => {
  it("head: names the read call that continues after the preview", () => {
    expect(
      hint({
        outputPath: "/d/tool_x",
        direction: "head",
        canDelegate: false,
        firstCutLine: 2001,
        lastCutLine: 9000,
      }),
    ).toBe(
      `${saved}\nUse Grep to search the full content or Read with offset/limit to view specific sections, ` +
        'e.g. read with filePath "/d/tool_x" and offset 2001.',
    )
  })

  it("tail: names the read call for the lines before the preview", () => {
    expect(
      hint({
        outputPath: "/d/tool_x",
        direction: "tail",
        canDelegate: false,
        firstCutLine: 1,
        lastCutLine: 7000,
      }),
    ).toBe(
      `${saved}\nUse Grep to search the full content or Read with offset/limit to view specific sections, ` +
        'e.g. read with filePath "/d/tool_x" and offset 1 and limit 7000.',
    )
  })

  it("suggests delegating when the agent can start a subagent", () => {
    expect(
      hint({
        outputPath: "/d/tool_x",
        direction: "head",
        canDelegate: true,
        firstCutLine: 5,
        lastCutLine: 9,
      }),
    ).toBe(
      `${saved}\nUse the Task tool to have explore agent process this file with Grep and Read (with offset/limit). ` +
        "Do NOT read the full file yourself - delegate to save context.",
    )
  })

  it("quotes the path so one with quotes or backslashes stays a valid argument", () => {
    const text = hint({
      outputPath: 'C:\\out\\"x"',
      direction: "head",
      canDelegate: false,
      firstCutLine: 3,
      lastCutLine: 9,
    })
    expect(text).toContain('filePath "C:\\\\out\\\\\\"x\\"" and offset 3.')
  })
})
