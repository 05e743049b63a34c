import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Pager } from "../../platform/text/hint.ts"
import { OutputStore } from "./store.ts"
import { truncate } from "./truncate.ts"

let root: string
let store: OutputStore

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-truncate-"))
  store = new OutputStore({ dir: join(root, "tool-output") })
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`)
const searchOrRead = "Search that file for what you need, or read"
const pager: Pager = {
  tool: "read",
  path: "filePath",
  offset: "offset",
  limit: "limit",
  maxLines: 2000,
  maxBytes: 51200,
  maxLineLength: 2000,
}
const saved = "The tool call succeeded but the output was truncated. Full output saved to:"

function truncatedOnly<T extends { truncated: boolean }>(result: T): Extract<T, { truncated: true }> {
  if (!result.truncated) throw new Error("expected the output to be truncated")
  return result as Extract<T, { truncated: true }>
}

describe("truncate", () => {
  it("returns short output as is and writes nothing", async () => {
    const text = numbered(10).join("\n")
    expect(await truncate(text, { limits: { maxLines: 10, maxBytes: 1000 }, store })).toEqual({
      truncated: false,
      content: text,
    })
    await expect(stat(store.dir)).rejects.toThrow(/ENOENT/)
  })

  it("head: preview, what was removed, then the hint naming the next read", async () => {
    const text = numbered(100).join("\n")
    const result = truncatedOnly(
      await truncate(text, { limits: { maxLines: 10, maxBytes: 51200 }, store, pager: () => pager }),
    )
    expect(result).toMatchObject({ removed: 90, unit: "lines" })
    expect(result.content).toBe(
      `${numbered(10).join("\n")}\n\n...90 lines truncated...\n\n` +
        `${saved} ${result.outputPath}\n${searchOrRead} lines 11-100 with: ` +
        `read {"filePath":${JSON.stringify(result.outputPath)},"offset":11,"limit":90}`,
    )
  })

  it("tail: what was removed and the hint first, the preview last", async () => {
    const text = numbered(100).join("\n")
    const result = truncatedOnly(
      await truncate(text, {
        limits: { maxLines: 10, maxBytes: 51200 },
        direction: "tail",
        store,
        pager: () => pager,
      }),
    )
    expect(result.content).toBe(
      `...90 lines truncated...\n\n${saved} ${result.outputPath}\n` +
        `${searchOrRead} lines 1-90 with: read {"filePath":${JSON.stringify(result.outputPath)},"offset":1,"limit":90}\n\n` +
        numbered(100).slice(90).join("\n"),
    )
  })

  it("reports bytes when the byte limit cut, and keeps part of an over-long single line", async () => {
    const result = truncatedOnly(
      await truncate("a".repeat(1000), { limits: { maxLines: 2000, maxBytes: 100 }, store }),
    )
    expect(result).toMatchObject({ removed: 900, unit: "bytes" })
    expect(result.content.startsWith(`${"a".repeat(100)}\n\n...900 bytes truncated...\n\n${saved}`)).toBe(
      true,
    )
  })

  it("saves the exact full text, bytes for bytes", async () => {
    const text = Array.from({ length: 5000 }, (_, i) => `${i} héllo 😀 日本 \r`).join("\n")
    const result = truncatedOnly(await truncate(text, { limits: { maxLines: 100, maxBytes: 51200 }, store }))
    expect((await readFile(result.outputPath)).equals(Buffer.from(text))).toBe(true)
    expect(await readdir(store.dir)).toHaveLength(1)
  })

  it("keeps failing-test lines from the cut region, once each, with their line numbers", async () => {
    const lines = [
      " RUN  v5.1.1 /project",
      "FAIL src/early.test.ts > only in the preview",
      ...numbered(3000),
      "FAIL src/x.test.ts > adds",
      "AssertionError: expected 3 to be 4",
      "    at src/x.test.ts:3:9",
      ...numbered(20),
      "Tests: 1 failed, 3 passed",
    ]
    const result = truncatedOnly(
      await truncate(lines.join("\n"), { limits: { maxLines: 2000, maxBytes: 51200 }, store }),
    )
    expect(result.content).toContain(
      "...\n\nLines from the truncated part that look like errors or summaries:\n" +
        "  line 3003: FAIL src/x.test.ts > adds\n" +
        "  line 3004: AssertionError: expected 3 to be 4\n" +
        "  line 3026: Tests: 1 failed, 3 passed\n\n" +
        saved,
    )
    expect(result.content.split("FAIL src/early.test.ts").length - 1).toBe(1)
    expect(result.content).not.toContain("at src/x.test.ts:3:9")
  })

  it("tail: puts the signal block between the notice and the hint", async () => {
    const text = ["Error: first attempt failed", ...numbered(50)].join("\n")
    const result = truncatedOnly(
      await truncate(text, { limits: { maxLines: 5, maxBytes: 51200 }, direction: "tail", store }),
    )
    expect(
      result.content.startsWith(
        "...46 lines truncated...\n\n" +
          "Lines from the truncated part that look like errors or summaries:\n  line 1: Error: first attempt failed\n\n" +
          saved,
      ),
    ).toBe(true)
  })

  it("suggests a subagent when the agent may delegate", async () => {
    const result = truncatedOnly(
      await truncate(numbered(20).join("\n"), {
        limits: { maxLines: 5, maxBytes: 51200 },
        store,
        canDelegate: true,
      }),
    )
    expect(result.content).toContain("Use the Task tool to have explore agent process this file")
  })

  it("rejects when the full text cannot be saved, instead of pointing at a missing file", async () => {
    await writeFile(join(root, "blocker"), "x")
    const broken = new OutputStore({ dir: join(root, "blocker", "tool-output") })
    await expect(
      truncate(numbered(100).join("\n"), { limits: { maxLines: 10, maxBytes: 51200 }, store: broken }),
    ).rejects.toThrow(/full tool output could not be saved/)
  })

  it("does not need the store when nothing is cut", async () => {
    await writeFile(join(root, "blocker"), "x")
    const broken = new OutputStore({ dir: join(root, "blocker", "tool-output") })
    expect(await truncate("short", { limits: { maxLines: 10, maxBytes: 51200 }, store: broken })).toEqual({
      truncated: false,
      content: "short",
    })
  })
})
