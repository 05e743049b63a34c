import { describe, expect, it } from "vitest"
import { type Chunk, type FileHunk, newLines, oldLines, parsePatch } from "./parse.ts"

const lines = (...rows: string[]) => rows.join("\n")

function hunks(text: string): FileHunk[] {
  const result = parsePatch(text)
  if (!result.ok) throw new Error(result.message)
  return result.hunks
}

function error(text: string): string {
  const result = parsePatch(text)
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.hunks)}`)
  return result.message
}

function chunks(text: string): Chunk[] {
  const [hunk] = hunks(text)
  if (hunk?.type !== "update") throw new Error("expected one update")
  return hunk.chunks
}

describe("parsePatch: sections", () => {
  it("reads add, delete and update (with a move) in one patch", () => {
    const parsed = hunks(
      lines(
        "*** Begin Patch",
        "*** Add File: src/new.ts",
        "+export const a = 1",
        "+",
        "+export const b = 2",
        "*** Delete File: src/old.ts",
        "*** Update File: src/main.ts",
        "*** Move to: src/app.ts",
        "@@ function main() {",
        " const x = 1",
        "-const y = 2",
        "+const y = 3",
        "*** End Patch",
      ),
    )
    expect(parsed).toEqual([
      { type: "add", path: "src/new.ts", content: "export const a = 1\n\nexport const b = 2\n", line: 2 },
      { type: "delete", path: "src/old.ts", line: 6 },
      {
        type: "update",
        path: "src/main.ts",
        movePath: "src/app.ts",
        line: 7,
        chunks: [
          {
            contexts: ["function main() {"],
            endOfFile: false,
            line: 9,
            lines: [
              { op: " ", text: "const x = 1" },
              { op: "-", text: "const y = 2" },
              { op: "+", text: "const y = 3" },
            ],
          },
        ],
      },
    ])
  })

  it("gives an added file a final newline, and an empty one no content", () => {
    const parsed = hunks(
      lines("*** Begin Patch", "*** Add File: a.txt", "+one", "*** Add File: empty.txt", "*** End Patch"),
    )
    expect(parsed.map((hunk) => (hunk.type === "add" ? hunk.content : undefined))).toEqual(["one\n", ""])
  })

  it("keeps blank lines between added lines and drops the ones before the next header", () => {
    const parsed = hunks(
      lines("*** Begin Patch", "*** Add File: a.txt", "+one", "", "+three", "", "", "*** End Patch"),
    )
    expect(parsed[0]).toMatchObject({ content: "one\n\nthree\n" })
  })

  it("splits chunks on @@, keeps the context header and accepts a first chunk without @@", () => {
    const parsed = chunks(
      lines(
        "*** Begin Patch",
        "*** Update File: a.py",
        " import os",
        "-import sys",
        "@@ def foo():",
        "-    return 1",
        "+    return 2",
        "@@",
        "+# end",
        "*** End Patch",
      ),
    )
    expect(parsed.map((chunk) => chunk.contexts)).toEqual([[], ["def foo():"], []])
    expect(parsed.map(oldLines)).toEqual([["import os", "import sys"], ["    return 1"], []])
    expect(parsed.map(newLines)).toEqual([["import os"], ["    return 2"], ["# end"]])
    expect(parsed.map((chunk) => chunk.line)).toEqual([3, 5, 8])
  })

  it("stacks consecutive @@ lines to drill into nested scopes", () => {
    const [chunk] = chunks(
      lines(
        "*** Begin Patch",
        "*** Update File: a.py",
        "@@ class A:",
        "@@     def f(self):",
        "-        pass",
        "+        return 1",
        "*** End Patch",
      ),
    )
    expect(chunk!.contexts).toEqual(["class A:", "    def f(self):"])
  })

  it("ignores the numbers of a unified-diff range header but keeps its trailing context", () => {
    const parsed = chunks(
      lines(
        "*** Begin Patch",
        "*** Update File: a.c",
        "@@ -10,3 +10,3 @@ int main() {",
        "-a",
        "+b",
        "@@ -20 +20 @@",
        "-c",
        "+d",
        "*** End Patch",
      ),
    )
    expect(parsed.map((chunk) => chunk.contexts)).toEqual([["int main() {"], []])
  })

  it("sets endOfFile from *** End of File (opencode never does)", () => {
    const parsed = chunks(
      lines(
        "*** Begin Patch",
        "*** Update File: a.txt",
        "@@",
        "-last",
        "+end",
        "*** End of File",
        "@@ x",
        "-y",
        "+z",
        "*** End Patch",
      ),
    )
    expect(parsed.map((chunk) => chunk.endOfFile)).toEqual([true, false])
  })

  it("reads a move without chunks as a rename", () => {
    expect(
      hunks(lines("*** Begin Patch", "*** Update File: a.txt", "*** Move to: b.txt", "*** End Patch")),
    ).toEqual([{ type: "update", path: "a.txt", movePath: "b.txt", chunks: [], line: 2 }])
  })

  it("turns a bare blank line inside a chunk into an empty context line, and drops trailing ones", () => {
    const [chunk] = chunks(
      lines(
        "*** Begin Patch",
        "*** Update File: a.txt",
        "@@",
        " a",
        "",
        "-b",
        "+c",
        "",
        "",
        "*** Update File: b.txt",
        "-x",
        "*** End Patch",
      ),
    )
    expect(chunk!.lines).toEqual([
      { op: " ", text: "a" },
      { op: " ", text: "" },
      { op: "-", text: "b" },
      { op: "+", text: "c" },
    ])
  })
})

describe("parsePatch: tolerance", () => {
  const body = lines("*** Begin Patch", "*** Update File: a.txt", "@@", "-a", "+b", "*** End Patch")
  const expected = hunks(body)

  it.each([
    ["apply_patch <<'EOF'", "EOF"],
    ['apply_patch <<"EOF"', "EOF"],
    ["apply_patch <<EOF", "EOF"],
    ["applypatch <<PATCH", "PATCH"],
    ["cat <<'EOF'", "EOF"],
    ["cat <<EOF", "EOF"],
    ["<<EOF", "EOF"],
    ["cat <<'EOF' | apply_patch", "EOF"],
    ["apply_patch <<-'END_PATCH'", "END_PATCH"],
  ])("strips a heredoc wrapper: %s", (open, close) => {
    const shifted = expected.map((hunk) =>
      hunk.type === "update"
        ? {
            ...hunk,
            line: hunk.line + 2,
            chunks: hunk.chunks.map((chunk) => ({ ...chunk, line: chunk.line + 2 })),
          }
        : { ...hunk, line: hunk.line + 2 },
    )
    expect(hunks(`\n${open}\n${body}\n${close}\n\n`)).toEqual(shifted)
  })

  it("accepts a heredoc whose closing delimiter is missing", () => {
    expect(hunks(`apply_patch <<'EOF'\n${body}`)).toHaveLength(1)
  })

  it("refuses a heredoc behind cd, whose paths would be relative to another directory", () => {
    expect(error(`cd sub && apply_patch <<'EOF'\n${body}\nEOF`)).toMatch(/line 1: .*cd/)
  })

  it("accepts whitespace around markers and headers", () => {
    const parsed = hunks(
      lines(
        "  *** Begin Patch  ",
        "\t*** Update File:   a.txt  ",
        "@@",
        "-a",
        "+b",
        " *** End of File ",
        "*** End Patch   ",
      ),
    )
    expect(parsed).toEqual([
      {
        type: "update",
        path: "a.txt",
        line: 2,
        chunks: [
          {
            contexts: [],
            endOfFile: true,
            line: 3,
            lines: [
              { op: "-", text: "a" },
              { op: "+", text: "b" },
            ],
          },
        ],
      },
    ])
  })

  it("accepts CRLF input and a missing trailing newline", () => {
    expect(hunks(body.replace(/\n/g, "\r\n"))).toEqual(expected)
    expect(hunks(`${body}\n`)).toEqual(expected)
    expect(hunks(`${body}\r\n\r\n`)).toEqual(expected)
  })

  it("strips read-tool gutters when every context and removed line has consecutive ones", () => {
    const [chunk] = chunks(
      lines(
        "*** Begin Patch",
        "*** Update File: a.ts",
        "@@",
        " 12: const a = 1",
        "-13: const b = 2",
        " 14:",
        "+const b = 3",
        "*** End Patch",
      ),
    )
    expect(chunk!.lines).toEqual([
      { op: " ", text: "const a = 1" },
      { op: "-", text: "const b = 2" },
      { op: " ", text: "" },
      { op: "+", text: "const b = 3" },
    ])
  })

  it("strips gutters from added lines only when all of them carry one", () => {
    const [chunk] = chunks(
      lines("*** Begin Patch", "*** Update File: a.ts", "-7: a", "+7: b", "+8: c", "*** End Patch"),
    )
    expect(newLines(chunk!)).toEqual(["b", "c"])
  })

  it.each([
    ["one line lacks a gutter", [" 12: a", "-b"]],
    ["the numbers are not consecutive", [" 1: a", "-5: b"]],
  ])("keeps text that looks like a gutter when %s", (_, rows) => {
    const [chunk] = chunks(
      lines("*** Begin Patch", "*** Update File: a.yaml", ...rows, "+c", "*** End Patch"),
    )
    expect(oldLines(chunk!)).toEqual(rows.map((row) => row.slice(1)))
  })
})

describe("parsePatch: errors", () => {
  it.each([
    ["an empty text", "", /patch is empty/],
    ["whitespace only", "  \n\n ", /patch is empty/],
    ["only the markers", lines("*** Begin Patch", "*** End Patch"), /empty patch: no file sections/],
    [
      "no begin marker",
      lines("*** Update File: a", "-a", "*** End Patch"),
      /line 1: expected "\*\*\* Begin Patch"/,
    ],
    [
      "no end marker",
      lines("*** Begin Patch", "*** Update File: a", "-a", "+b"),
      /line 4: expected "\*\*\* End Patch" as the last line.*cut off/,
    ],
    ["only a begin marker", "*** Begin Patch", /line 1: missing "\*\*\* End Patch"/],
    [
      "an end marker in the middle",
      lines("*** Begin Patch", "*** End Patch", "*** Add File: a", "+x", "*** End Patch"),
      /line 2: .*must be the last line/,
    ],
  ])("rejects %s", (_, text, message) => {
    expect(error(text)).toMatch(message)
  })

  it("names an unknown header with its line and the headers expected", () => {
    const message = error(lines("*** Begin Patch", "*** Frobnicate File: foo", "*** End Patch"))
    expect(message).toContain('line 2: unknown header "*** Frobnicate File: foo"')
    expect(message).toContain('"*** Add File: <path>", "*** Delete File: <path>", "*** Update File: <path>"')
  })

  it("names an unknown header inside an update", () => {
    expect(
      error(lines("*** Begin Patch", "*** Update File: a", "-a", "*** Replace File: b", "*** End Patch")),
    ).toMatch(/^line 4: unknown header "\*\*\* Replace File: b" in a; expected a chunk line/)
  })

  it("names a line without a valid prefix inside an update, and what was expected", () => {
    const message = error(
      lines("*** Begin Patch", "*** Update File: src/a.ts", "@@", " keep", "oops", "*** End Patch"),
    )
    expect(message).toBe(
      'line 5: expected a line starting with " " (context), "-" (remove), "+" (add) or "@@" in src/a.ts, found "oops"',
    )
  })

  it.each([
    [
      "text before the first header",
      lines("*** Begin Patch", "hello", "*** End Patch"),
      /line 2: expected a file header/,
    ],
    [
      "an added line without +",
      lines("*** Begin Patch", "*** Add File: a", "+x", "y", "*** End Patch"),
      /line 4: expected a line starting with "\+" \(content of the added file a\)/,
    ],
    [
      "lines after a delete",
      lines("*** Begin Patch", "*** Delete File: a", "-x", "*** End Patch"),
      /line 3: "\*\*\* Delete File: a" takes no lines/,
    ],
    [
      "an update without changes",
      lines("*** Begin Patch", "*** Update File: a", "*** End Patch"),
      /line 2: "\*\*\* Update File: a" has no changes/,
    ],
    [
      "an @@ without lines",
      lines("*** Begin Patch", "*** Update File: a", "@@ ctx", "*** End Patch"),
      /line 3: the chunk "@@ ctx" in a has no lines/,
    ],
    [
      "a misplaced move",
      lines("*** Begin Patch", "*** Update File: a", "-x", "*** Move to: b", "*** End Patch"),
      /line 4: "\*\*\* Move to:" must directly follow/,
    ],
    [
      "an End of File without lines",
      lines("*** Begin Patch", "*** Update File: a", "@@", "*** End of File", "*** End Patch"),
      /line 4: "\*\*\* End of File" must follow the lines of a chunk/,
    ],
    [
      "chunk lines after End of File without @@",
      lines("*** Begin Patch", "*** Update File: a", "-x", "*** End of File", "+y", "*** End Patch"),
      /line 5: expected "@@" to start a new chunk/,
    ],
    [
      "a header without a path",
      lines("*** Begin Patch", "*** Add File:   ", "+x", "*** End Patch"),
      /line 2: "\*\*\* Add File:" needs a path/,
    ],
    [
      "a move without a path",
      lines("*** Begin Patch", "*** Update File: a", "*** Move to:", "*** End Patch"),
      /line 3: "\*\*\* Move to:" needs a path/,
    ],
  ])("rejects %s", (_, text, message) => {
    expect(error(text)).toMatch(message)
  })

  it("counts line numbers from the original text when a heredoc was stripped", () => {
    expect(
      error(lines("", "cat <<'EOF'", "*** Begin Patch", "*** Update File: a", "bad", "*** End Patch", "EOF")),
    ).toMatch(/^line 5:/)
  })
})
