import { describe, expect, it } from "vitest"
import { type MergeInput, merge } from "./merge.ts"

/** A merge whose alignment pairs non-blank lines in order, and blank runs of equal length line by line. */
function run(input: Omit<MergeInput, "partialFirst"> & { partialFirst?: boolean }) {
  return merge({ partialFirst: false, ...input })
}

function lines(input: Parameters<typeof run>[0]): string[] {
  const result = run(input)
  if (!result.ok) throw new Error(result.message)
  return result.lines
}

describe("merge: lines newString leaves alone keep the file's text", () => {
  it.each<[string, string[], string[], string[], string[]]>([
    ["trailing whitespace", ["a()", "b()"], ["a()  ", "b()"], ["a()", "c()"], ["a()  ", "c()"]],
    ["typography", ['x = "y"', "z = 1"], ["x = “y”", "z = 1"], ['x = "y"', "z = 2"], ["x = “y”", "z = 2"]],
    ["indentation", ["a", "b"], ["\t\ta", "\t\tb"], ["a", "c"], ["\t\ta", "\t\tc"]],
    [
      "only the indentation changed: the file's text at the new depth",
      ['say "hi"'],
      ["say “hi”"],
      ['  say "hi"'],
      ["  say “hi”"],
    ],
  ])("%s", (_, oldLines, fileLines, newLines, expected) => {
    const fileLineOf = oldLines.map((_, k) => k)
    expect(lines({ oldLines, fileLines, newLines, fileLineOf })).toEqual(expected)
  })
})

describe("merge: changed lines", () => {
  it("lose the trailing whitespace the model gave its copy and the file does not have", () => {
    expect(
      lines({
        oldLines: ["a = 1  ", "b"],
        fileLines: ["a = 1", "b"],
        newLines: ["a = 2  ", "b"],
        fileLineOf: [0, 1],
      }),
    ).toEqual(["a = 2", "b"])
  })

  it("are as written when the file's line has trailing whitespace of its own", () => {
    expect(
      lines({
        oldLines: ["a = 1", "b"],
        fileLines: ["a = 1  ", "b"],
        newLines: ["a = 2", "b"],
        fileLineOf: [0, 1],
      }),
    ).toEqual(["a = 2", "b"])
  })
})

describe("merge: indentation of changed and added lines", () => {
  it("gives a changed line the file's indentation when the model kept its own", () => {
    expect(
      lines({ oldLines: ["  x = 1"], fileLines: ["\t\tx = 1"], newLines: ["  x = 2"], fileLineOf: [0] }),
    ).toEqual(["\t\tx = 2"])
  })

  it("indents an added line like the kept line after it that the model indented alike", () => {
    expect(
      lines({
        oldLines: ["remove(id) {", "this.items.delete(id)", "}"],
        fileLines: ["  remove(id) {", "    this.items.delete(id)", "  }"],
        newLines: ["remove(id) {", "if (!id) return", "this.items.delete(id)", "}"],
        fileLineOf: [0, 1, 2],
      }),
    ).toEqual(["  remove(id) {", "    if (!id) return", "    this.items.delete(id)", "  }"])
  })

  it("re-indents the rest when the first line was copied without its indentation", () => {
    expect(
      lines({
        oldLines: ["if (a) {", "            b()", "        }"],
        fileLines: ["    if (a) {", "        b()", "    }"],
        newLines: ["if (a) {", "            b()", "            c()", "        }"],
        fileLineOf: [0, 1, 2],
      }),
    ).toEqual(["    if (a) {", "        b()", "        c()", "    }"])
  })

  it("continues a partial first line without indentation", () => {
    expect(
      lines({
        oldLines: ["compute(x)", "  return y"],
        fileLines: ["compute(x)", "    return y"],
        newLines: ["compute(x, 2)", "  return y"],
        fileLineOf: [0, 1],
        partialFirst: true,
      }),
    ).toEqual(["compute(x, 2)", "    return y"])
  })
})

describe("merge: blank lines", () => {
  it.each<[string, string[], string[], number[], string[], string[]]>([
    ["one the model dropped is kept", ["a", "b"], ["a", "", "b"], [0, 2], ["a", "c"], ["a", "", "c"]],
    [
      "one the model added is not written",
      ["a", "", "b"],
      ["a", "b"],
      [0, -1, 1],
      ["a", "", "c"],
      ["a", "c"],
    ],
    [
      "two sent as one stay two",
      ["a", "", "b"],
      ["a", "", "", "b"],
      [0, -1, 3],
      ["A", "", "b"],
      ["A", "", "", "b"],
    ],
    [
      "all the model knew of removed: all go",
      ["a", "", "b"],
      ["a", "", "", "b"],
      [0, -1, 3],
      ["a", "b"],
      ["a", "b"],
    ],
    ["a deletion through the end takes the ones before it", ["a", "b"], ["a", "", "b"], [0, 2], ["a"], ["a"]],
    [
      "a deletion between two such runs takes the one after it",
      ["a", "b", "c"],
      ["a", "", "b", "", "c"],
      [0, 2, 4],
      ["a", "c"],
      ["a", "", "c"],
    ],
    [
      "an added line indented like the next line goes after them",
      ["    a", "b"],
      ["    a", "", "b"],
      [0, 2],
      ["    a", "c", "b"],
      ["    a", "", "c", "b"],
    ],
    [
      "an added line indented like the previous line goes before them",
      ["    a", "b"],
      ["    a", "", "b"],
      [0, 2],
      ["    a", "    c", "b"],
      ["    a", "    c", "", "b"],
    ],
    [
      "an added list item goes with the list it resembles, before them",
      ["- a", "- b", "Next paragraph."],
      ["- a", "- b", "", "Next paragraph."],
      [0, 1, 3],
      ["- a", "- b", "- c", "Next paragraph."],
      ["- a", "- b", "- c", "", "Next paragraph."],
    ],
    [
      "an added numbered item goes with the list it starts like",
      ["1. one", "2. two", "> note"],
      ["1. one", "2. two", "", "> note"],
      [0, 1, 3],
      ["1. one", "2. two", "3. three", "> note"],
      ["1. one", "2. two", "3. three", "", "> note"],
    ],
    [
      "a blank line added where the file already has one",
      ["a", "b"],
      ["a", "", "b"],
      [0, 2],
      ["a", "", "B"],
      ["a", "", "B"],
    ],
  ])("%s", (_, oldLines, fileLines, fileLineOf, newLines, expected) => {
    expect(lines({ oldLines, fileLines, fileLineOf, newLines })).toEqual(expected)
  })

  it.each<[string, string[], string[], number[], string[]]>([
    ["a line added where either side fits", ["a", "b"], ["a", "", "b"], [0, 2], ["a", "x", "b"]],
    [
      "one of two blank lines removed where the file has one",
      ["a", "", "", "b"],
      ["a", "", "b"],
      [0, -1, -1, 2],
      ["a", "", "b"],
    ],
  ])("refuses %s", (_, oldLines, fileLines, fileLineOf, newLines) => {
    const result = run({ oldLines, fileLines, fileLineOf, newLines })
    expect(result.ok).toBe(false)
    if (!result.ok)
      expect(result.message).toMatch(/^oldString's blank lines differ from the file's where newString/)
  })
})

describe("merge: a rewrite too large to diff", () => {
  it("replaces the whole window with newString, re-indented", () => {
    const oldLines = Array.from({ length: 1100 }, (_, i) => `old${i}()`)
    const fileLines = oldLines.map((line) => `\t${line}`)
    const newLines = Array.from({ length: 1100 }, (_, i) => `new${i}()`)
    const fileLineOf = oldLines.map((_, k) => k)
    expect(lines({ oldLines, fileLines, newLines, fileLineOf })).toEqual(newLines.map((line) => `\t${line}`))
  })
})
