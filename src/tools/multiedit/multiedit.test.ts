import { readFile, writeFile } from "node:fs/promises"
import { describe, expect, it } from "vitest"
import { hashContent } from "../../platform/fs/text.ts"
import { completed, failed, useHarness } from "../kit/fixtures/harness.ts"
import { EMPTY_MESSAGE, IDENTICAL_MESSAGE } from "../kit/match/replace.ts"
import { MultiEditTool } from "./multiedit.ts"

const h = useHarness({ multiedit: MultiEditTool })

type Edit = { oldString: string; newString: string; replaceAll?: boolean }
const multiedit = (filePath: string, edits: Edit[]) => h.call("multiedit", { filePath, edits })
const read = (name: string) => readFile(h.path(name), "utf8")
const editAsks = () => h.asks.filter((ask) => ask.permission === "edit")

const SOURCE = "import a from 'a'\n\nfunction one() {\n  return 1\n}\n\nfunction two() {\n  return 2\n}\n"

describe("multiedit", () => {
  it("applies the edits in order, writes once, and asks once with the combined diff", async () => {
    await writeFile(h.path("m.ts"), SOURCE)
    const result = completed(
      await multiedit("m.ts", [
        { oldString: "return 1", newString: "return 10" },
        { oldString: "return 2", newString: "return 20" },
        // Works on the result of the first edit.
        { oldString: "return 10", newString: "return 100" },
      ]),
    )
    expect(await read("m.ts")).toBe(
      SOURCE.replace("return 1\n", "return 100\n").replace("return 2", "return 20"),
    )
    expect(result.output).toBe("Applied 3 edits successfully.")
    expect(result.title).toBe("m.ts")
    expect(editAsks()).toHaveLength(1)
    expect(editAsks()[0]).toMatchObject({
      patterns: ["m.ts"],
      always: ["*"],
      metadata: { filepath: h.path("m.ts") },
    })
    const diff = editAsks()[0]!.metadata.diff as string
    expect(diff).toContain("-  return 1\n+  return 100")
    expect(diff).toContain("-  return 2\n+  return 20")
    expect(result.metadata).toMatchObject({
      additions: 2,
      deletions: 2,
      results: [
        { matcher: "exact", occurrences: 1, lines: [4] },
        { matcher: "exact", occurrences: 1, lines: [8] },
        { matcher: "exact", occurrences: 1, lines: [4] },
      ],
      filediff: { file: h.path("m.ts"), additions: 2, deletions: 2 },
    })
    expect(h.events).toEqual([
      { type: "file.edited", properties: { file: h.path("m.ts"), sessionID: "ses_test" } },
    ])
  })

  it("leaves the file byte-identical when the last of three edits fails, and names it", async () => {
    const bytes = Buffer.from(`\uFEFF${SOURCE.replaceAll("\n", "\r\n")}`, "utf8")
    await writeFile(h.path("atomic.ts"), bytes)
    const result = failed(
      await multiedit("atomic.ts", [
        { oldString: "return 1", newString: "return 10" },
        { oldString: "return 2", newString: "return 20" },
        { oldString: "function three() {", newString: "function drei() {" },
      ]),
    )
    expect(result.kind).toBe("failure")
    expect(result.error).toMatch(/^Edit 3 of 3 failed: Could not find oldString in the file\./)
    expect(result.error).toContain("No edit was applied; the file is unchanged.")
    expect((await readFile(h.path("atomic.ts"))).equals(bytes)).toBe(true)
    expect(editAsks()).toEqual([])
    expect(h.events).toEqual([])
  })

  it("fails on an ambiguous edit, naming it", async () => {
    await writeFile(h.path("a.ts"), SOURCE)
    const result = failed(
      await multiedit("a.ts", [
        { oldString: "return 1", newString: "return 10" },
        { oldString: "function", newString: "fn" },
      ]),
    )
    expect(result.error).toMatch(/^Edit 2 of 2 failed: Found 2 matches for oldString \(at lines 3, 7\)/)
    expect(await read("a.ts")).toBe(SOURCE)
  })

  it("rejects identical strings before touching anything", async () => {
    await writeFile(h.path("i.ts"), SOURCE)
    const result = failed(
      await multiedit("i.ts", [
        { oldString: "return 1", newString: "return 10" },
        { oldString: "x", newString: "x" },
      ]),
    )
    expect(result.error).toBe(
      `Edit 2 of 2 failed: ${IDENTICAL_MESSAGE}\n\nNo edit was applied; the file is unchanged.`,
    )
    expect(h.asks).toEqual([])
  })

  it("supports replaceAll per edit", async () => {
    await writeFile(h.path("r.ts"), "foo foo\nbar\n")
    completed(
      await multiedit("r.ts", [
        { oldString: "foo", newString: "baz", replaceAll: true },
        { oldString: "bar", newString: "qux" },
      ]),
    )
    expect(await read("r.ts")).toBe("baz baz\nqux\n")
  })

  it("creates a file from a first edit with an empty oldString, then applies the rest", async () => {
    const result = completed(
      await multiedit("new/file.ts", [
        { oldString: "", newString: "const a = 1\nconst b = 2\n" },
        { oldString: "const b = 2", newString: "const b = 3" },
      ]),
    )
    expect(await read("new/file.ts")).toBe("const a = 1\nconst b = 3\n")
    expect(result.metadata.results).toEqual([
      { matcher: "create", occurrences: 1, lines: [1] },
      { matcher: "exact", occurrences: 1, lines: [2] },
    ])
  })

  it("refuses an empty oldString on an existing file, or after the first edit", async () => {
    await writeFile(h.path("e.ts"), SOURCE)
    expect(failed(await multiedit("e.ts", [{ oldString: "", newString: "x" }])).error).toBe(
      `Edit 1 of 1 failed: ${EMPTY_MESSAGE}\n\nNo edit was applied; the file is unchanged.`,
    )
    const created = failed(
      await multiedit("f.ts", [
        { oldString: "", newString: "a\n" },
        { oldString: "", newString: "b\n" },
      ]),
    )
    expect(created.error).toMatch(/^Edit 2 of 2 failed: oldString cannot be empty/)
    await expect(readFile(h.path("f.ts"))).rejects.toThrow()
  })

  it("names a missing file", async () => {
    const result = failed(await multiedit("nope.ts", [{ oldString: "a", newString: "b" }]))
    expect(result.error).toBe(
      `File ${h.path("nope.ts")} not found\n\nGive the first edit an empty oldString to create it.`,
    )
  })

  it("rejects an empty list of edits as invalid input", async () => {
    expect(failed(await multiedit("x.ts", [])).kind).toBe("invalid")
  })

  it("reports which edits were not exact matches", async () => {
    await writeFile(h.path("t.ts"), "function f() {\n\tif (x) {\n\t\tgo()\n\t}\n}\n")
    const result = completed(
      await multiedit("t.ts", [
        { oldString: "function f() {", newString: "function g() {" },
        { oldString: "  if (x) {\n    go()\n  }", newString: "  if (x) {\n    stop()\n  }" },
      ]),
    )
    expect(await read("t.ts")).toBe("function g() {\n\tif (x) {\n\t\tstop()\n\t}\n}\n")
    expect(result.output).toMatch(/^Applied 2 edits successfully\.\n\nEdit 2: oldString did not match/)
    expect(result.output).toContain("(line-trimmed matcher, at line 2)")
  })

  it("checks the read ledger when it has an entry, and records what it wrote", async () => {
    await writeFile(h.path("l.ts"), SOURCE)
    h.ledger.record("ses_test", h.path("l.ts"), { hash: hashContent("stale"), size: 5, mtime: 0 })
    expect(failed(await multiedit("l.ts", [{ oldString: "return 1", newString: "return 9" }])).error).toMatch(
      /has changed since you last read it/,
    )
    expect(await read("l.ts")).toBe(SOURCE)
    h.ledger.forget("ses_test", h.path("l.ts"))
    completed(await multiedit("l.ts", [{ oldString: "return 1", newString: "return 9" }]))
    expect(h.ledger.get("ses_test", h.path("l.ts"))?.hash).toBe(hashContent(await read("l.ts")))
  })

  it("keeps CRLF and the BOM", async () => {
    await writeFile(h.path("w.txt"), "\uFEFFa\r\nb\r\nc\r\n")
    completed(
      await multiedit("w.txt", [
        { oldString: "a\nb", newString: "A\nB" },
        { oldString: "c", newString: "C\nD" },
      ]),
    )
    expect(await read("w.txt")).toBe("\uFEFFA\r\nB\r\nC\r\nD\r\n")
  })
})
