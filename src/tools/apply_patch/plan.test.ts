import { describe, expect, it } from "vitest"
import { countLines } from "../kit/file-edit/diff.ts"
import { parsePatch } from "./parse.ts"
import { type PlannedChange, planPatch } from "./plan.ts"

const lines = (...rows: string[]) => rows.join("\n")
const patch = (...rows: string[]) => lines("*** Begin Patch", ...rows, "*** End Patch")

function plan(text: string, files: Record<string, string>) {
  const parsed = parsePatch(text)
  if (!parsed.ok) throw new Error(parsed.message)
  return planPatch(parsed.hunks, (path) => files[path])
}

function changes(text: string, files: Record<string, string>): PlannedChange[] {
  const result = plan(text, files)
  if (!result.ok) throw new Error(result.message)
  return result.changes
}

function failure(text: string, files: Record<string, string>): string {
  const result = plan(text, files)
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.changes)}`)
  return result.message
}

/** The files after writing the changes in order, as the tool does. */
function written(files: Record<string, string>, planned: readonly PlannedChange[]): Record<string, string> {
  const out = { ...files }
  for (const change of planned) {
    if (change.type === "delete") delete out[change.path]
    else if (change.movePath !== undefined) {
      delete out[change.path]
      out[change.movePath] = change.newContent
    } else out[change.path] = change.newContent
  }
  return out
}

describe("planPatch", () => {
  it("plans an add, an update and a delete in one patch", () => {
    const files = { "modify.txt": "line1\nline2\n", "delete.txt": "obsolete\n" }
    const planned = changes(
      patch(
        "*** Add File: nested/new.txt",
        "+created",
        "*** Delete File: delete.txt",
        "*** Update File: modify.txt",
        "@@",
        "-line2",
        "+changed",
      ),
      files,
    )
    expect(planned).toEqual([
      {
        type: "add",
        path: "nested/new.txt",
        oldContent: "",
        newContent: "created\n",
        additions: 1,
        deletions: 0,
        notes: [],
      },
      {
        type: "delete",
        path: "delete.txt",
        oldContent: "obsolete\n",
        newContent: "",
        additions: 0,
        deletions: 1,
        notes: [],
      },
      {
        type: "update",
        path: "modify.txt",
        oldContent: "line1\nline2\n",
        newContent: "line1\nchanged\n",
        additions: 1,
        deletions: 1,
        notes: [],
      },
    ])
  })

  it("applies several hunks to one file", () => {
    const files = { "multi.txt": "line1\nline2\nline3\nline4\n" }
    const [change] = changes(
      patch("*** Update File: multi.txt", "@@", "-line2", "+changed2", "@@", "-line4", "+changed4"),
      files,
    )
    expect(change).toMatchObject({
      newContent: "line1\nchanged2\nline3\nchanged4\n",
      additions: 2,
      deletions: 2,
    })
  })

  it("keeps a leading BOM of an updated file", () => {
    const [change] = changes(patch("*** Update File: bom.txt", "@@", "-first", "+FIRST"), {
      "bom.txt": "\uFEFFfirst\nsecond\n",
    })
    expect(change!.newContent).toBe("\uFEFFFIRST\nsecond\n")
  })

  it("places an insert-only hunk after its context line", () => {
    const files = { "insert.txt": "alpha\nomega\n" }
    const [change] = changes(patch("*** Update File: insert.txt", "@@ alpha", "+beta"), files)
    expect(change!.newContent).toBe("alpha\nbeta\nomega\n")
  })

  it("adds a trailing newline when the patch changes the last line", () => {
    const [change] = changes(
      patch("*** Update File: no-newline.txt", "@@", "-no newline at end", "+first line", "+second line"),
      {
        "no-newline.txt": "no newline at end",
      },
    )
    expect(change!.newContent).toBe("first line\nsecond line\n")
  })

  it("moves a file with changes", () => {
    const files = { "old/name.txt": "old content\n" }
    const planned = changes(
      patch(
        "*** Update File: old/name.txt",
        "*** Move to: renamed/dir/name.txt",
        "@@",
        "-old content",
        "+new content",
      ),
      files,
    )
    expect(planned).toEqual([
      {
        type: "update",
        path: "old/name.txt",
        movePath: "renamed/dir/name.txt",
        oldContent: "old content\n",
        newContent: "new content\n",
        additions: 1,
        deletions: 1,
        notes: [],
      },
    ])
    expect(written(files, planned)).toEqual({ "renamed/dir/name.txt": "new content\n" })
  })

  it("moves a file without changes", () => {
    const planned = changes(patch("*** Update File: a.txt", "*** Move to: b.txt"), { "a.txt": "same\n" })
    expect(planned).toEqual([
      {
        type: "update",
        path: "a.txt",
        movePath: "b.txt",
        oldContent: "same\n",
        newContent: "same\n",
        additions: 0,
        deletions: 0,
        notes: [],
      },
    ])
  })

  it("treats a move onto its own path as a plain update", () => {
    const [change] = changes(patch("*** Update File: a.txt", "*** Move to: a.txt", "-x", "+y"), {
      "a.txt": "x\n",
    })
    expect(change).not.toHaveProperty("movePath")
    expect(change!.newContent).toBe("y\n")
  })

  it("refuses a move onto an existing file unless the patch deletes it first", () => {
    const files = { "old/name.txt": "from\n", "renamed/dir/name.txt": "existing\n" }
    const update = [
      "*** Update File: old/name.txt",
      "*** Move to: renamed/dir/name.txt",
      "@@",
      "-from",
      "+new",
    ]
    expect(failure(patch(...update), files)).toBe(
      "Update File old/name.txt (patch line 2): cannot move to renamed/dir/name.txt, which already exists; " +
        'add "*** Delete File: renamed/dir/name.txt" before this section to replace it',
    )
    const planned = changes(patch("*** Delete File: renamed/dir/name.txt", ...update), files)
    expect(planned.map((change) => change.type)).toEqual(["delete", "update"])
    expect(written(files, planned)).toEqual({ "renamed/dir/name.txt": "new\n" })
  })

  it("refuses to add a file that exists", () => {
    expect(
      failure(patch("*** Add File: duplicate.txt", "+new content"), { "duplicate.txt": "old content\n" }),
    ).toBe(
      'Add File duplicate.txt (patch line 2): the file already exists; use "*** Update File" to change it, or "*** Delete File" it first to replace it',
    )
  })

  it("allows replacing a file by deleting it first in the same patch", () => {
    const files = { "a.txt": "old\n" }
    const planned = changes(patch("*** Delete File: a.txt", "*** Add File: a.txt", "+new"), files)
    expect(written(files, planned)).toEqual({ "a.txt": "new\n" })
  })

  it.each([
    [
      "an update",
      patch("*** Update File: missing.txt", "@@", "-nope", "+better"),
      "Update File missing.txt (patch line 2): file not found",
    ],
    [
      "a delete",
      patch("*** Delete File: missing.txt"),
      "Delete File missing.txt (patch line 2): file not found",
    ],
  ])("refuses %s of a missing file", (_, text, message) => {
    expect(failure(text, {})).toBe(message)
  })

  it("reports a reader that throws (a directory) as an error", () => {
    const parsed = parsePatch(patch("*** Update File: dir", "-x"))
    if (!parsed.ok) throw new Error(parsed.message)
    const result = planPatch(parsed.hunks, () => {
      throw new Error("EISDIR: illegal operation on a directory")
    })
    expect(result).toEqual({
      ok: false,
      message: "Failed to read dir: EISDIR: illegal operation on a directory",
    })
  })

  it("names the file and the lines when context is missing", () => {
    const message = failure(patch("*** Update File: modify.txt", "@@", "-missing", "+changed"), {
      "modify.txt": "line1\nline2\n",
    })
    expect(message).toBe(
      'Failed to find expected lines in modify.txt (patch line 3), searching from line 1:\n  missing\nThe first expected line "missing" is not in the file.',
    )
  })

  it("verifies every hunk before planning anything, and reports every failure", () => {
    const files = { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" }
    const result = plan(
      patch(
        "*** Update File: a.txt",
        "-a",
        "+A",
        "*** Update File: b.txt",
        "-nope",
        "+B",
        "*** Add File: c.txt",
        "+c",
        "*** Update File: b.txt",
        "-b",
        "+B",
      ),
      files,
    )
    expect(result.ok).toBe(false)
    if (result.ok) return
    // Both failures are reported; the second update of b.txt is skipped as a follow-on.
    expect(result.message.split("\n\n")).toHaveLength(2)
    expect(result.message).toContain("Failed to find expected lines in b.txt")
    expect(result.message).toContain("Add File c.txt (patch line 8): the file already exists")
  })

  it("applies later hunks for a file to the result of earlier ones", () => {
    const files = { "a.txt": "1\n2\n3\n" }
    const planned = changes(
      patch("*** Update File: a.txt", "-1", "+one", "*** Update File: a.txt", "-one", "+uno", " 2"),
      files,
    )
    expect(planned.map((change) => [change.oldContent, change.newContent])).toEqual([
      ["1\n2\n3\n", "one\n2\n3\n"],
      ["one\n2\n3\n", "uno\n2\n3\n"],
    ])
  })

  it("carries the notes of tolerant matching", () => {
    const [change] = changes(patch("*** Update File: a.txt", "-“quoted”", "+plain"), {
      "a.txt": '"quoted"\n',
    })
    expect(change!.notes).toEqual([
      "a.txt: chunk 1 matched ignoring whitespace and Unicode punctuation (curly quotes, dashes, non-breaking spaces) at line 1",
    ])
  })

  it("plans 50 hunks over 10 files correctly", () => {
    const files: Record<string, string> = {}
    const expected: Record<string, string> = {}
    const rows: string[] = []
    for (let f = 0; f < 10; f++) {
      const path = `src/module${f}.ts`
      // Repeated lines ("}", "") make positions ambiguous without context.
      const original = Array.from({ length: 300 }, (_, i) =>
        i % 10 === 9 ? "}" : i % 10 === 0 ? "" : `  value${f}_${i} = ${i}`,
      )
      files[path] = `${original.join("\n")}\n`
      const result = original.slice()
      rows.push(`*** Update File: ${path}`)
      // Four chunks and an End of File one; built bottom-up in `result` so indices stay valid, emitted top-down in the patch.
      const chunkRows: string[][] = []
      for (const at of [283, 224, 150, 35]) {
        const kind = at % 3
        const context = original.slice(at - 3, at)
        const after = original.slice(at + 1, at + 4)
        if (kind === 0) {
          // replace one line
          chunkRows.unshift([
            "@@",
            ...context.map((l) => ` ${l}`),
            `-${original[at]}`,
            `+  changed${f}_${at}`,
            ...after.map((l) => ` ${l}`),
          ])
          result.splice(at, 1, `  changed${f}_${at}`)
        } else if (kind === 1) {
          // delete one line
          chunkRows.unshift([
            "@@",
            ...context.map((l) => ` ${l}`),
            `-${original[at]}`,
            ...after.map((l) => ` ${l}`),
          ])
          result.splice(at, 1)
        } else {
          // pure insertion after an anchor line given as @@ context
          chunkRows.unshift([`@@ ${original[at]!.trim()}`, `+  inserted${f}_${at}`])
          result.splice(at + 1, 0, `  inserted${f}_${at}`)
        }
      }
      for (const chunk of chunkRows) rows.push(...chunk)
      rows.push("@@", ` ${original.at(-2)}`, `-${original.at(-1)}`, "+} // end", "*** End of File")
      result.splice(result.length - 1, 1, "} // end")
      expected[path] = `${result.join("\n")}\n`
    }
    const text = patch(...rows)
    const parsed = parsePatch(text)
    if (!parsed.ok) throw new Error(parsed.message)
    const chunkCount = parsed.hunks.reduce(
      (sum, hunk) => sum + (hunk.type === "update" ? hunk.chunks.length : 0),
      0,
    )
    expect(chunkCount).toBe(50)
    const planned = changes(text, files)
    expect(planned).toHaveLength(10)
    expect(written(files, planned)).toEqual(expected)
    for (const change of planned) {
      expect(countLines(change.newContent) - countLines(change.oldContent)).toBe(
        change.additions - change.deletions,
      )
      expect(change.notes).toEqual([])
    }
  })
})
