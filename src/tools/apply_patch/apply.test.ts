import { describe, expect, it } from "vitest"
import { applyChunks } from "./apply.ts"
import { type Chunk, parsePatch } from "./parse.ts"

const lines = (...rows: string[]) => rows.join("\n")

/** The chunks of `*** Update File: f` with the given body rows. */
function chunksOf(...rows: string[]): Chunk[] {
  const parsed = parsePatch(lines("*** Begin Patch", "*** Update File: f", ...rows, "*** End Patch"))
  if (!parsed.ok) throw new Error(parsed.message)
  const [hunk] = parsed.hunks
  if (hunk?.type !== "update") throw new Error("expected an update")
  return hunk.chunks
}

function apply(original: string, ...rows: string[]) {
  const result = applyChunks(original, "src/f.ts", chunksOf(...rows))
  if (!result.ok) throw new Error(result.message)
  return result
}

function applyError(original: string, ...rows: string[]): string {
  const result = applyChunks(original, "src/f.ts", chunksOf(...rows))
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.content)}`)
  return result.message
}

describe("applyChunks: placement", () => {
  it("replaces lines and counts additions and deletions", () => {
    const result = apply("a\nb\nc\n", " a", "-b", "+B", "+B2", " c")
    expect(result).toEqual({ ok: true, content: "a\nB\nB2\nc\n", additions: 2, deletions: 1, notes: [] })
  })

  it("applies several chunks in order", () => {
    const original = lines("one", "two", "three", "four", "five", "six", "")
    expect(apply(original, "@@", "-two", "+2", "@@", " four", "-five", "+5").content).toBe(
      lines("one", "2", "three", "four", "5", "six", ""),
    )
  })

  it("searches each chunk after the previous one, so repeated lines are taken in turn", () => {
    const original = lines("x = 1", "x = 1", "x = 1", "")
    expect(apply(original, "@@", "-x = 1", "+x = 2", "@@", "-x = 1", "+x = 3").content).toBe(
      lines("x = 2", "x = 3", "x = 1", ""),
    )
  })

  it("moves the search past the @@ context line first", () => {
    const original = lines("def a():", "    return 1", "", "def b():", "    return 1", "")
    expect(apply(original, "@@ def b():", "-    return 1", "+    return 2").content).toBe(
      lines("def a():", "    return 1", "", "def b():", "    return 2", ""),
    )
  })

  it("follows stacked @@ contexts into nested scopes", () => {
    const original = lines(
      "class A:",
      "    def f(self):",
      "        pass",
      "class B:",
      "    def f(self):",
      "        pass",
      "",
    )
    const result = apply(original, "@@ class B:", "@@     def f(self):", "-        pass", "+        return 1")
    expect(result.content).toBe(
      lines(
        "class A:",
        "    def f(self):",
        "        pass",
        "class B:",
        "    def f(self):",
        "        return 1",
        "",
      ),
    )
  })

  it("accepts a context header that is only the start of its line", () => {
    const original = lines(
      "function a(x: number): number {",
      "  return x",
      "}",
      "function b(x: number): number {",
      "  return x",
      "}",
      "",
    )
    const result = apply(original, "@@ function b", "-  return x", "+  return x * 2")
    expect(result.content).toContain("function b(x: number): number {\n  return x * 2\n}")
    expect(result.notes).toEqual(['src/f.ts: context "@@ function b" matched the start of line 4'])
  })

  it("accepts a context header that is the first line the chunk changes", () => {
    const original = lines("def f():", "    pass", "")
    expect(apply(original, "@@ def f():", "-def f():", "+def f(x):", "     pass").content).toBe(
      lines("def f(x):", "    pass", ""),
    )
  })

  it("inserts a pure-insertion chunk right after its context line, not at the end (opencode's bug)", () => {
    const original = lines("import a", "import b", "", "main()", "")
    expect(apply(original, "@@ import b", "+import c").content).toBe(
      lines("import a", "import b", "import c", "", "main()", ""),
    )
  })

  it("inserts after the last of stacked contexts", () => {
    const original = lines("class A {", "  x = 1", "}", "class B {", "  x = 1", "}", "")
    expect(apply(original, "@@ class B {", "@@   x = 1", "+  y = 2").content).toBe(
      lines("class A {", "  x = 1", "}", "class B {", "  x = 1", "  y = 2", "}", ""),
    )
  })

  it("appends a pure insertion without context, or marked End of File, at the end", () => {
    expect(apply("a\nb\n", "@@", "+c").content).toBe("a\nb\nc\n")
    expect(apply("a\nb\n", "@@ a", "+c", "*** End of File").content).toBe("a\nb\nc\n")
    expect(apply("", "+first").content).toBe("first\n")
  })

  it("anchors an End of File chunk at the end even when the same lines appear earlier", () => {
    const original = lines("}", "", "}", "")
    expect(apply(original, "@@", "-}", "+} // end", "*** End of File").content).toBe(
      lines("}", "", "} // end", ""),
    )
    // Without the marker, the first occurrence is the one changed.
    expect(apply(original, "@@", "-}", "+} // end").content).toBe(lines("} // end", "", "}", ""))
  })

  it("anchors at the end before any looser search, and past trailing blank lines", () => {
    // An exact "}" earlier loses to the last line, which matches only without its trailing space.
    expect(apply(lines("}", "x", "} ", ""), "-}", "+end", "*** End of File").content).toBe(
      lines("}", "x", "end", ""),
    )
    expect(apply(lines("}", "x", "}", "", "", ""), "-}", "+end", "*** End of File").content).toBe(
      lines("}", "x", "end", "", "", ""),
    )
  })

  it("falls back to the occurrence nearest the end when an End of File chunk is not at the end", () => {
    expect(apply(lines("a", "b", "a", "b", "c", ""), "-a", "+A", " b", "*** End of File").content).toBe(
      lines("a", "b", "A", "b", "c", ""),
    )
  })

  it("prefers an exact match further on to a whitespace-tolerant one nearby", () => {
    const original = lines("foo  ", "bar", "foo", "")
    expect(apply(original, "-foo", "+baz").content).toBe(lines("foo  ", "bar", "baz", ""))
  })

  it("retries without a trailing empty context line the file does not have", () => {
    expect(apply("a\nb", " a", "-b", "+c", " ").content).toBe("a\nc\n")
  })
})

describe("applyChunks: file format", () => {
  it("keeps a file without a final newline that way when its last line is untouched", () => {
    expect(apply("a\nb\nc", "-a", "+A").content).toBe("A\nb\nc")
  })

  it("ends the file with a newline when the patch changes or extends its last line", () => {
    expect(apply("a\nb\nc", " b", "-c", "+C").content).toBe("a\nb\nC\n")
    expect(apply("a\nb\nc", " c", "+d").content).toBe("a\nb\nc\nd\n")
    expect(apply("a\nb\nc", "@@", "+d", "*** End of File").content).toBe("a\nb\nc\nd\n")
  })

  it("keeps CRLF line endings, also on added lines, whatever the patch uses", () => {
    const original = "one\r\ntwo\r\nthree\r\n"
    expect(apply(original, " one", "-two", "+2", "+2b", " three").content).toBe("one\r\n2\r\n2b\r\nthree\r\n")
  })

  it("keeps each untouched line's own ending in a mixed file", () => {
    const original = "a\r\nb\nc\r\nd\r\n"
    expect(apply(original, " c", "-d", "+D").content).toBe("a\r\nb\nc\r\nD\r\n")
  })

  it("keeps a leading BOM, and matches the first line without it", () => {
    const result = apply("\uFEFFfirst\nsecond\n", "-first", "+FIRST")
    expect(result.content).toBe("\uFEFFFIRST\nsecond\n")
  })

  it("counts a delete-and-re-add of the same line as no change", () => {
    const result = apply("a\nb\nc\n", "-a", "-b", "+a", "+x")
    expect(result).toMatchObject({ content: "a\nx\nc\n", additions: 1, deletions: 1 })
  })
})

describe("applyChunks: tolerance", () => {
  it("matches ignoring trailing whitespace and keeps the file's context lines as they are", () => {
    const result = apply("a   \nb\t\nc\n", " a", "-b", "+B")
    expect(result.content).toBe("a   \nB\nc\n")
    expect(result.notes).toEqual(["src/f.ts: chunk 1 matched ignoring trailing whitespace at line 1"])
  })

  it("matches ignoring indentation, and re-indents added lines to the file's tabs", () => {
    const original = lines("function f() {", "\tif (x) {", "\t\treturn 1", "\t}", "}", "")
    const result = apply(
      original,
      "     if (x) {",
      "-        return 1",
      "+        return 2",
      "+        // done",
      "     }",
    )
    expect(result.content).toBe(
      lines("function f() {", "\tif (x) {", "\t\treturn 2", "\t\t// done", "\t}", "}", ""),
    )
    expect(result.notes[0]).toMatch(
      /ignoring leading and trailing whitespace at line 2; added lines re-indented/,
    )
  })

  it("re-indents added lines written without the file's common indentation", () => {
    const original = lines("class A {", "    method() {", "        return 1", "    }", "}", "")
    const result = apply(original, " method() {", "-    return 1", "+    return 2", " }")
    expect(result.content).toBe(lines("class A {", "    method() {", "        return 2", "    }", "}", ""))
  })

  it("keeps added lines as written when the indentation differs inconsistently", () => {
    const original = lines("a", "    b", "c", "")
    const result = apply(original, "  a", "-b", "+x", "  c")
    expect(result.content).toBe(lines("a", "x", "c", ""))
  })

  it("matches across Unicode punctuation (curly quotes, dashes, non-breaking spaces)", () => {
    const original = lines("const s = “hello” — ‘world’", "const t = 1\u00A0+\u00A02 … done", "")
    const result = apply(
      original,
      " const s = \"hello\" - 'world'",
      "-const t = 1 + 2 ... done",
      "+const t = 3",
    )
    expect(result.content).toBe(lines("const s = “hello” — ‘world’", "const t = 3", ""))
    expect(result.notes[0]).toMatch(/Unicode punctuation/)
  })
})

describe("applyChunks: errors", () => {
  const file = lines("import a", "import b", "", "function main() {", "  run(1)", "  run(2)", "}", "")

  it("names the file, the chunk, the line searched from and the expected lines", () => {
    const message = applyError(file, "@@", " function main() {", "-  run(3)", "+  run(4)")
    expect(message).toBe(
      [
        "Failed to find expected lines in src/f.ts (patch line 3), searching from line 1:",
        "  function main() {",
        "    run(3)",
        'Closest: line 4 matches the first 1 expected line, then line 5 is "  run(1)" where the patch expects "  run(3)".',
      ].join("\n"),
    )
  })

  it("shows only the first few expected lines", () => {
    const message = applyError(file, "-x1", "-x2", "-x3", "-x4", "-x5", "-x6", "-x7")
    expect(message).toContain("  x5\n  ... (2 more lines)\n")
    expect(message).toContain('The first expected line "x1" is not in the file.')
  })

  it("says when chunks are out of file order", () => {
    const message = applyError(file, "@@", "-  run(2)", "+  run(22)", "@@", "-  run(1)", "+  run(11)")
    expect(message).toMatch(
      /^Failed to find expected lines in src\/f\.ts \(chunk 2 of 2, patch line 6\), searching from line 7:/,
    )
    expect(message).toContain(
      "These lines are at line 5 (before the search start: chunks must be in file order).",
    )
  })

  it("names a missing context header", () => {
    expect(applyError(file, "@@ function other() {", "-  run(1)", "+  run(9)")).toBe(
      'Failed to find context "@@ function other() {" in src/f.ts (patch line 3), searching from line 1.\n' +
        'The first expected line "function other() {" is not in the file.',
    )
  })

  it("says an End of File chunk was anchored at the end", () => {
    expect(applyError(file, "@@", "-import q", "+import z", "*** End of File")).toMatch(
      /searching from line 1 \(anchored at the end of the file\):\n {2}import q/,
    )
  })
})
