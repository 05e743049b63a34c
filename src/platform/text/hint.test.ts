import { describe, expect, it } from "vitest"
import { hint, type Pager, pagesOf, readRest } from "./hint.ts"

const saved = "The tool call succeeded but the output was truncated. Full output saved to: /d/tool_x"
const pager: Pager = {
  tool: "read",
  path: "filePath",
  offset: "offset",
  limit: "limit",
  maxLines: 2000,
  maxBytes: 51200,
  maxLineLength: 2000,
}
const lines = (count: number, width = 1) =>
  Array.from({ length: count }, (_, i) => String(i + 1).padStart(width, "0")).join("\n")

describe("hint", () => {
  it("head: names the call that reads what follows the preview", () => {
    expect(
      hint({
        outputPath: "/d/tool_x",
        direction: "head",
        canDelegate: false,
        firstCutLine: 2001,
        lastCutLine: 3000,
        pager,
        text: lines(3000),
      }),
    ).toBe(
      `${saved}\nSearch that file for what you need, or read lines 2001-3000 with: ` +
        'read {"filePath":"/d/tool_x","offset":2001,"limit":1000}',
    )
  })

  it("tail: names the calls for the lines before the preview, each within a page", () => {
    expect(
      hint({
        outputPath: "/d/tool_x",
        direction: "tail",
        canDelegate: false,
        firstCutLine: 1,
        lastCutLine: 5000,
        pager,
        text: lines(7000),
      }),
    ).toBe(
      `${saved}\nSearch that file for what you need, or read lines 1-5000 in 3 calls (a page holds up to 2000 lines or 50 KB): ` +
        'read {"filePath":"/d/tool_x","offset":1,"limit":2000}, then read {"filePath":"/d/tool_x","offset":2001,"limit":2000}, ' +
        'then read {"filePath":"/d/tool_x","offset":4001,"limit":1000}',
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
      pager,
      text: lines(9),
    })
    expect(text).toContain('read {"filePath":"C:\\\\out\\\\\\"x\\"","offset":3,"limit":7}')
  })

  it("names the tool and fields the pager declares (a tool registered under another name)", () => {
    const other = { ...pager, tool: "view_file", path: "path", offset: "start", limit: "count" }
    expect(readRest({ pager: other, path: "/f", from: 2, to: 3, text: lines(3) })).toBe(
      'read lines 2-3 with: view_file {"path":"/f","start":2,"count":2}',
    )
  })

  it("without the text: the first call, then page by page", () => {
    expect(readRest({ pager, path: "/f", from: 1, to: 58000 })).toBe(
      "read lines 1-58000 page by page (a page holds up to 2000 lines or 50 KB; each page ends with the offset " +
        'to continue from), starting with: read {"filePath":"/f","offset":1}',
    )
  })

  it("many pages: the first call sized to fit, then page by page", () => {
    expect(readRest({ pager, path: "/f", from: 1, to: 58000, text: lines(58000, 5) })).toBe(
      "read lines 1-58000 page by page (a page holds up to 2000 lines or 50 KB; each page ends with the offset " +
        'to continue from), starting with: read {"filePath":"/f","offset":1,"limit":2000}',
    )
  })

  it("without a pager: says no tool pages files here, and which lines hold the rest", () => {
    expect(readRest({ pager: undefined, path: "/f", from: 4, to: 9 })).toBe(
      "read lines 4-9 of it with any tool that reads files (none that pages is offered here).",
    )
  })
})

describe("pagesOf", () => {
  const limits = { maxLines: 2000, maxBytes: 51200, maxLineLength: 2000 }
  const wide = (count: number, width: number) =>
    Array.from({ length: count }, () => "x".repeat(width)).join("\n")

  it.each([
    [
      "short lines: pages of maxLines",
      lines(4500),
      1,
      4500,
      [
        [1, 2000],
        [2001, 2000],
        [4001, 500],
      ],
    ],
    ["a range in the middle", lines(4500), 1001, 1500, [[1001, 500]]],
    // 99 bytes and a newline: 512 lines make 51,200 bytes.
    [
      "bytes bound first",
      wide(1200, 99),
      1,
      1200,
      [
        [1, 512],
        [513, 512],
        [1025, 176],
      ],
    ],
    // A line past maxLineLength is counted as the reader shortens it: it fits with its neighbours.
    ["a long line, shortened", `a\n${"y".repeat(60000)}\nb`, 1, 3, [[1, 3]]],
  ])("%s", (_name, text, from, to, expected) => {
    expect(
      pagesOf(text as string, from as number, to as number, limits).map((page) => [page.offset, page.limit]),
    ).toEqual(expected)
  })

  it("UTF-8 size, not characters: 200 lines of 200 'é' (400 bytes) fit 127 to a page", () => {
    const text = Array.from({ length: 200 }, () => "é".repeat(200)).join("\n")
    expect(pagesOf(text, 1, 200, limits).map((page) => page.limit)).toEqual([127, 73])
  })

  it("a line over the whole byte budget is a page of its own (the reader shows it cut)", () => {
    const text = `a\n${"y".repeat(60000)}\nb`
    const pages = pagesOf(text, 1, 3, { ...limits, maxLineLength: 100000 })
    expect(pages.map((page) => [page.offset, page.limit])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ])
  })

  it("stops after a few pages more than it lists", () => {
    expect(pagesOf(lines(100000), 1, 100000, limits)).toHaveLength(5)
  })
})
