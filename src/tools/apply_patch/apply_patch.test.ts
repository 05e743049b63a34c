import { access, mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { hashContent } from "../../platform/fs/text.ts"
import { completed, createHarness, failed, useHarness } from "../kit/fixtures/harness.ts"
import { ApplyPatchTool } from "./apply_patch.ts"

const h = useHarness({ apply_patch: ApplyPatchTool })

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")
const apply = (patchText: string) => h.call("apply_patch", { patchText })
const read = (name: string) => readFile(h.path(name), "utf8")
const exists = (name: string) =>
  access(h.path(name)).then(
    () => true,
    () => false,
  )
const editAsks = () => h.asks.filter((ask) => ask.permission === "edit")

describe("applying", () => {
  it("adds, updates, deletes and moves files in one patch, with one ask listing every file", async () => {
    await writeFile(h.path("update.txt"), "one\ntwo\nthree\n")
    await writeFile(h.path("delete.txt"), "bye\nnow\n")
    await writeFile(h.path("old.txt"), "moving\ncontent\n")
    const result = completed(
      await apply(
        patch(
          "*** Add File: added/new.txt",
          "+hello",
          "+world",
          "*** Update File: update.txt",
          "@@",
          " one",
          "-two",
          "+TWO",
          " three",
          "*** Delete File: delete.txt",
          "*** Update File: old.txt",
          "*** Move to: moved/new-name.txt",
          "@@",
          " moving",
          "-content",
          "+changed",
        ),
      ),
    )
    expect(await read("added/new.txt")).toBe("hello\nworld\n")
    expect(await read("update.txt")).toBe("one\nTWO\nthree\n")
    expect(await exists("delete.txt")).toBe(false)
    expect(await exists("old.txt")).toBe(false)
    expect(await read("moved/new-name.txt")).toBe("moving\nchanged\n")

    expect(result.output).toBe(
      "Success. Updated the following files:\nA added/new.txt\nM update.txt\nD delete.txt\nM moved/new-name.txt",
    )
    expect(editAsks()).toHaveLength(1)
    const ask = editAsks()[0]!
    expect(ask.patterns).toEqual([
      "added/new.txt",
      "update.txt",
      "delete.txt",
      "old.txt",
      "moved/new-name.txt",
    ])
    expect(ask.always).toEqual(["*"])
    expect(ask.metadata.filepath).toBe("added/new.txt, update.txt, delete.txt, moved/new-name.txt")
    expect(ask.metadata.diff).toBe(result.metadata.diff)
    expect(result.metadata.files).toMatchObject([
      {
        type: "add",
        filePath: h.path("added/new.txt"),
        relativePath: "added/new.txt",
        additions: 2,
        deletions: 0,
      },
      { type: "update", filePath: h.path("update.txt"), additions: 1, deletions: 1 },
      { type: "delete", filePath: h.path("delete.txt"), additions: 0, deletions: 2 },
      {
        type: "move",
        filePath: h.path("old.txt"),
        movePath: h.path("moved/new-name.txt"),
        relativePath: "moved/new-name.txt",
        additions: 1,
        deletions: 1,
      },
    ])
    const files = result.metadata.files as { diff: string }[]
    expect(files[1]!.diff).toContain("-two\n+TWO")
    expect(h.events.map((event) => (event.properties as { file: string }).file)).toEqual([
      h.path("added/new.txt"),
      h.path("update.txt"),
      h.path("delete.txt"),
      h.path("moved/new-name.txt"),
      h.path("old.txt"),
    ])
  })

  it("applies several chunks to one file", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
    await writeFile(h.path("multi.txt"), `${lines.join("\n")}\n`)
    completed(
      await apply(
        patch(
          "*** Update File: multi.txt",
          "@@",
          " line 2",
          "-line 3",
          "+LINE 3",
          " line 4",
          "@@",
          " line 19",
          "-line 20",
          "+LINE 20",
          " line 21",
          "@@",
          " line 29",
          "-line 30",
          "+LINE 30",
        ),
      ),
    )
    const expected = lines.map((line) =>
      ["line 3", "line 20", "line 30"].includes(line) ? line.toUpperCase() : line,
    )
    expect(await read("multi.txt")).toBe(`${expected.join("\n")}\n`)
  })

  it("keeps a file's BOM and CRLF line endings", async () => {
    await writeFile(h.path("bom.txt"), "\uFEFFfirst\r\nsecond\r\nthird\r\n")
    const result = completed(
      await apply(
        patch("*** Update File: bom.txt", "@@", " first", "-second", "+SECOND", "+extra", " third"),
      ),
    )
    expect(await read("bom.txt")).toBe("\uFEFFfirst\r\nSECOND\r\nextra\r\nthird\r\n")
    expect((result.metadata.files as { diff: string }[])[0]!.diff).not.toContain("\uFEFF")
  })

  it("keeps the BOM of a moved file", async () => {
    await writeFile(h.path("src.txt"), "\uFEFFa\nb\n")
    completed(await apply(patch("*** Update File: src.txt", "*** Move to: dst.txt", "@@", " a", "-b", "+c")))
    expect(await read("dst.txt")).toBe("\uFEFFa\nc\n")
  })

  it("inserts a pure-insertion chunk right after its context line, not at the end", async () => {
    await writeFile(h.path("ins.py"), "def a():\n    pass\n\ndef b():\n    pass\n")
    completed(await apply(patch("*** Update File: ins.py", "@@ def a():", "+    # first in a")))
    expect(await read("ins.py")).toBe("def a():\n    # first in a\n    pass\n\ndef b():\n    pass\n")
  })

  it("anchors a chunk marked End of File at the end of the file", async () => {
    await writeFile(h.path("eof.txt"), "x\nend\nmiddle\nx\nend\n")
    completed(await apply(patch("*** Update File: eof.txt", "@@", " x", "-end", "+END", "*** End of File")))
    expect(await read("eof.txt")).toBe("x\nend\nmiddle\nx\nEND\n")
  })

  it("narrows a chunk with its @@ context line", async () => {
    await writeFile(
      h.path("ctx.ts"),
      "class A {\n  run() {\n    go()\n  }\n}\nclass B {\n  run() {\n    go()\n  }\n}\n",
    )
    completed(
      await apply(patch("*** Update File: ctx.ts", "@@ class B {", "   run() {", "-    go()", "+    stop()")),
    )
    expect(await read("ctx.ts")).toBe(
      "class A {\n  run() {\n    go()\n  }\n}\nclass B {\n  run() {\n    stop()\n  }\n}\n",
    )
  })

  it("takes a heredoc-wrapped patch and absolute paths", async () => {
    await writeFile(h.path("h.txt"), "a\n")
    completed(
      await apply(
        ["apply_patch <<'EOF'", patch(`*** Update File: ${h.path("h.txt")}`, "@@", "-a", "+b"), "EOF"].join(
          "\n",
        ),
      ),
    )
    expect(await read("h.txt")).toBe("b\n")
  })

  it("tells the model when chunks matched only loosely", async () => {
    await writeFile(h.path("loose.ts"), "function f() {\n    return 1   \n}\n")
    const result = completed(
      await apply(
        patch("*** Update File: loose.ts", "@@", " function f() {", "-    return 1", "+    return 2"),
      ),
    )
    expect(await read("loose.ts")).toBe("function f() {\n    return 2\n}\n")
    expect(result.output).toContain(
      "\n\nThe patch did not match exactly everywhere:\n- loose.ts: chunk 1 matched",
    )
  })

  it("records what it wrote in the ledger and forgets deleted files", async () => {
    await writeFile(h.path("a.txt"), "a\n")
    await writeFile(h.path("gone.txt"), "g\n")
    h.ledger.record("ses_test", h.path("gone.txt"), { hash: hashContent("g\n"), size: 2, mtime: 0 })
    completed(
      await apply(
        patch(
          "*** Update File: a.txt",
          "@@",
          "-a",
          "+b",
          "*** Delete File: gone.txt",
          "*** Add File: n.txt",
          "+n",
        ),
      ),
    )
    expect(h.ledger.get("ses_test", h.path("a.txt"))?.hash).toBe(hashContent("b\n"))
    expect(h.ledger.get("ses_test", h.path("n.txt"))?.hash).toBe(hashContent("n\n"))
    expect(h.ledger.get("ses_test", h.path("gone.txt"))).toBeUndefined()
  })

  it("asks external_directory for paths outside the project, move targets included", async () => {
    await writeFile(h.path("in.txt"), "x\n")
    completed(
      await apply(
        patch("*** Update File: in.txt", `*** Move to: ${join(h.outside, "out.txt")}`, "@@", "-x", "+y"),
      ),
    )
    expect(await readFile(join(h.outside, "out.txt"), "utf8")).toBe("y\n")
    expect(h.asks.filter((ask) => ask.permission === "external_directory")).toMatchObject([
      { patterns: [`${h.outside}/*`] },
    ])
  })
})

describe("verification: nothing is written unless every hunk fits", () => {
  it("writes nothing when a later chunk's context is missing, and names the file and lines", async () => {
    await writeFile(h.path("ok.txt"), "fine\n")
    await writeFile(h.path("bad.txt"), "alpha\nbeta\n")
    const result = failed(
      await apply(
        patch(
          "*** Add File: created.txt",
          "+new",
          "*** Update File: ok.txt",
          "@@",
          "-fine",
          "+FINE",
          "*** Update File: bad.txt",
          "@@",
          " alpha",
          "-gamma",
          "+delta",
        ),
      ),
    )
    expect(result.kind).toBe("failure")
    expect(result.error).toMatch(/^apply_patch verification failed; no file was changed\.\n\n/)
    expect(result.error).toContain("Failed to find expected lines in bad.txt")
    expect(result.error).toContain("gamma")
    expect(await read("ok.txt")).toBe("fine\n")
    expect(await exists("created.txt")).toBe(false)
    expect(editAsks()).toEqual([])
    expect(h.events).toEqual([])
  })

  it("names a missing @@ context line", async () => {
    await writeFile(h.path("c.ts"), "class A {\n  run() {}\n}\n")
    const result = failed(
      await apply(patch("*** Update File: c.ts", "@@ class B {", "-  run() {}", "+  stop() {}")),
    )
    expect(result.error).toContain('Failed to find context "@@ class B {" in c.ts')
    expect(await read("c.ts")).toBe("class A {\n  run() {}\n}\n")
  })

  it("refuses to add a file that exists", async () => {
    await writeFile(h.path("here.txt"), "original\n")
    const result = failed(await apply(patch("*** Add File: here.txt", "+replacement")))
    expect(result.error).toContain("Add File here.txt (patch line 2): the file already exists")
    expect(await read("here.txt")).toBe("original\n")
  })

  it("refuses to update or delete a missing file, and to update a directory", async () => {
    expect(failed(await apply(patch("*** Update File: none.txt", "@@", "-a", "+b"))).error).toContain(
      "Update File none.txt (patch line 2): file not found",
    )
    expect(failed(await apply(patch("*** Delete File: none.txt"))).error).toContain(
      "Delete File none.txt (patch line 2): file not found",
    )
    await mkdir(h.path("dir"))
    expect(failed(await apply(patch("*** Update File: dir", "@@", "-a", "+b"))).error).toContain(
      "Failed to read dir: it is a directory, not a file",
    )
  })

  it("refuses to move onto a file that exists", async () => {
    await writeFile(h.path("from.txt"), "a\n")
    await writeFile(h.path("to.txt"), "b\n")
    expect(
      failed(await apply(patch("*** Update File: from.txt", "*** Move to: to.txt", "@@", "-a", "+c"))).error,
    ).toContain("cannot move to to.txt, which already exists")
    expect(await read("to.txt")).toBe("b\n")
    expect(await read("from.txt")).toBe("a\n")
  })

  it("gives the parser's message for an empty or invalid patch", async () => {
    expect(failed(await apply("")).error).toBe(
      'apply_patch could not parse the patch: patch is empty; write "*** Begin Patch", the file sections, then "*** End Patch".',
    )
    expect(failed(await apply(patch())).error).toMatch(/^apply_patch could not parse the patch: empty patch/)
    expect(failed(await apply("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b")).error).toContain(
      'expected "*** End Patch" as the last line',
    )
    expect(failed(await apply(patch("*** Frobnicate File: x"))).error).toContain("unknown header")
    expect(h.asks).toEqual([])
  })

  it("refuses a patch when a file changed since the session read it", async () => {
    await writeFile(h.path("s.txt"), "seen\n")
    h.ledger.record("ses_test", h.path("s.txt"), { hash: hashContent("seen\n"), size: 5, mtime: 0 })
    await writeFile(h.path("s.txt"), "changed\n")
    const result = failed(await apply(patch("*** Update File: s.txt", "@@", "-changed", "+mine")))
    expect(result.error).toMatch(/s\.txt has changed since you last read it/)
    expect(result.error).toContain("No file was changed.")
    expect(await read("s.txt")).toBe("changed\n")
  })

  it("writes nothing when the edit permission is denied", async () => {
    const strict = await createHarness(
      { apply_patch: ApplyPatchTool },
      { rules: [{ permission: "edit", pattern: "*", action: "deny" }] },
    )
    try {
      await writeFile(strict.path("p.txt"), "p\n")
      const result = failed(
        await strict.call("apply_patch", {
          patchText: patch("*** Update File: p.txt", "@@", "-p", "+q", "*** Add File: n.txt", "+n"),
        }),
      )
      expect(result.kind).toBe("permission")
      expect(await readFile(strict.path("p.txt"), "utf8")).toBe("p\n")
      await expect(access(strict.path("n.txt"))).rejects.toThrow()
    } finally {
      await strict.close()
    }
  })

  it("stops before writing when aborted", async () => {
    await writeFile(h.path("ab.txt"), "a\n")
    const controller = new AbortController()
    controller.abort()
    const result = failed(
      await h.call(
        "apply_patch",
        { patchText: patch("*** Update File: ab.txt", "@@", "-a", "+b") },
        { abort: controller.signal },
      ),
    )
    expect(result.kind).toBe("interrupted")
    expect(await read("ab.txt")).toBe("a\n")
  })
})

describe("concurrency", () => {
  it("serialises parallel patches of one file with the other writers: all changes survive", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `value${i} = old`)
    await writeFile(h.path("shared.txt"), `${lines.join("\n")}\n`)
    const results = await Promise.all(
      lines.map((line, i) =>
        apply(patch("*** Update File: shared.txt", "@@", `-${line}`, `+value${i} = new`)),
      ),
    )
    expect(results.map((result) => result.status)).toEqual(Array(20).fill("completed"))
    expect(await read("shared.txt")).toBe(`${lines.map((_, i) => `value${i} = new`).join("\n")}\n`)
  })
})

describe("rollback when a write fails midway", () => {
  it("restores updated files byte for byte and removes created files and directories", async () => {
    const original = Buffer.from("\uFEFFkeep\r\nme\r\n", "utf8")
    await writeFile(h.path("first.txt"), original, { mode: 0o640 })
    await writeFile(h.path("doomed.txt"), "delete me\n")
    // A regular file where the patch needs a directory: the third write fails with ENOTDIR.
    await writeFile(h.path("blocker"), "I am a file\n")
    const result = failed(
      await apply(
        patch(
          "*** Update File: first.txt",
          "@@",
          " keep",
          "-me",
          "+you",
          "*** Add File: fresh/sub/created.txt",
          "+created",
          "*** Delete File: doomed.txt",
          "*** Add File: blocker/inside.txt",
          "+cannot exist",
        ),
      ),
    )
    expect(result.kind).toBe("failure")
    expect(result.error).toMatch(/^apply_patch failed while writing blocker\/inside\.txt: Cannot write /)
    expect(result.error).toContain("is a file, not a directory")
    expect(result.error).toContain(
      "The files already written were restored (doomed.txt, fresh/sub/created.txt, first.txt), so no file was changed.",
    )
    expect((await readFile(h.path("first.txt"))).equals(original)).toBe(true)
    expect((await stat(h.path("first.txt"))).mode & 0o777).toBe(0o640)
    expect(await read("doomed.txt")).toBe("delete me\n")
    expect(await exists("fresh/sub/created.txt")).toBe(false)
    expect(await exists("fresh")).toBe(false)
    expect(await read("blocker")).toBe("I am a file\n")
    expect(h.events).toEqual([])
    expect(h.ledger.get("ses_test", h.path("first.txt"))).toBeUndefined()
  })

  it("restores a moved file to its old path", async () => {
    await writeFile(h.path("m.txt"), "moving\n")
    await writeFile(h.path("blocker"), "file\n")
    failed(
      await apply(
        patch(
          "*** Update File: m.txt",
          "*** Move to: dest/m.txt",
          "@@",
          "-moving",
          "+moved",
          "*** Add File: blocker/x",
          "+x",
        ),
      ),
    )
    expect(await read("m.txt")).toBe("moving\n")
    expect(await exists("dest")).toBe(false)
  })
})
