import { describe, expect, it } from "vitest"
import { detectIndentUnit, type IndentUnit, indentOf, reindent } from "./reindent.ts"

const lines = (text: string) => text.split("\n")

describe("detectIndentUnit", () => {
  it.each<[string, string, IndentUnit | undefined]>([
    ["no indentation", "a\nb\nc", undefined],
    ["tabs", "a {\n\tb {\n\t\tc\n\t}\n}", { kind: "tab" }],
    ["2 spaces", "a {\n  b {\n    c\n  }\n}", { kind: "space", width: 2 }],
    ["4 spaces", "a {\n    b {\n        c\n    }\n}", { kind: "space", width: 4 }],
    [
      "4 spaces with JSDoc continuation lines",
      "/**\n * doc\n */\nf {\n    g\n}",
      { kind: "space", width: 4 },
    ],
    [
      "4 spaces, closing two levels at once",
      "a\n    b\n        c\n            d\nf\n    g",
      { kind: "space", width: 4 },
    ],
    ["tabs with alignment spaces", "\ta\n\t\tb\n\t  c\n\td", { kind: "tab" }],
    ["a single 4-space line", "    return x", { kind: "space", width: 4 }],
    ["a single 8-space line", "        return x", { kind: "space", width: 4 }],
    ["a single 2-space line", "  return x", { kind: "space", width: 2 }],
  ])("%s", (_, text, unit) => {
    expect(detectIndentUnit(lines(text))).toEqual(unit)
  })

  it("takes the preferred width when every width is a multiple of it and there is no step", () => {
    expect(detectIndentUnit(["    x"], { kind: "space", width: 2 })).toEqual({ kind: "space", width: 2 })
    expect(detectIndentUnit(["   x"], { kind: "space", width: 2 })).toEqual({ kind: "space", width: 3 })
  })
})

describe("indentOf", () => {
  it("is the leading spaces and tabs", () => {
    expect(indentOf("\t  x y")).toBe("\t  ")
    expect(indentOf("x")).toBe("")
    expect(indentOf("   ")).toBe("   ")
  })
})

/** reindent for a block matched line for line. */
function run(oldString: string, fileBlock: string, newString: string, fileUnit?: IndentUnit) {
  const oldLines = lines(oldString)
  return reindent({
    newString,
    oldLines,
    matchedLines: lines(fileBlock),
    pairs: oldLines.map((_, k) => [k, k] as const),
    ...(fileUnit ? { fileUnit } : {}),
  })
}

describe("reindent", () => {
  it("does nothing when the indentation agrees", () => {
    expect(run("  a\n  b", "  a  \n  b", "  c")).toBeUndefined()
  })

  it("adds the prefix the file has in front of oldString's indentation", () => {
    const result = run("if (a) {\n  b()\n}", "    if (a) {\n      b()\n    }", "if (a) {\n  c()\n\n  d()\n}")
    expect(result?.text).toBe("    if (a) {\n      c()\n\n      d()\n    }")
    expect(result?.note).toBe("newString re-indented to the file's indentation (+4 spaces)")
  })

  it("removes the prefix oldString has that the file does not", () => {
    const result = run(
      "\t\tif (a) {\n\t\t\tb()\n\t\t}",
      "\tif (a) {\n\t\tb()\n\t}",
      "\t\tif (a) {\n\t\t\tc()\n\t\t}\n\t\td()",
    )
    expect(result?.text).toBe("\tif (a) {\n\t\tc()\n\t}\n\td()")
    expect(result?.note).toBe("newString re-indented to the file's indentation (-1 tab)")
  })

  it("converts spaces to the file's tabs, keeping relative indentation", () => {
    const result = run(
      "    if (a) {\n        b()\n    }",
      "\tif (a) {\n\t\tb()\n\t}",
      "    if (a) {\n        b()\n        if (c) {\n            d()\n        }\n    }",
      { kind: "tab" },
    )
    expect(result?.text).toBe("\tif (a) {\n\t\tb()\n\t\tif (c) {\n\t\t\td()\n\t\t}\n\t}")
    expect(result?.note).toBe("newString re-indented with tabs as the file uses")
  })

  it("converts tabs to the file's spaces, at the file's depth", () => {
    const result = run(
      "if (a) {\n\tb()\n}",
      "    if (a) {\n        b()\n    }",
      "if (a) {\n\tc()\n\td()\n}",
      {
        kind: "space",
        width: 4,
      },
    )
    expect(result?.text).toBe("    if (a) {\n        c()\n        d()\n    }")
    expect(result?.note).toBe("newString re-indented with 4 spaces as the file uses")
  })

  it("converts 4-space indentation to a 2-space file", () => {
    const result = run("a {\n    b\n}", "a {\n  b\n}", "a {\n    b\n    c {\n        d\n    }\n}", {
      kind: "space",
      width: 2,
    })
    expect(result?.text).toBe("a {\n  b\n  c {\n    d\n  }\n}")
  })

  it("keeps alignment columns past a whole level", () => {
    const result = run(
      "    /**\n     * doc\n     */",
      "\t/**\n\t * doc\n\t */",
      "    /**\n     * new doc\n     */",
      {
        kind: "tab",
      },
    )
    expect(result?.text).toBe("\t/**\n\t * new doc\n\t */")
  })

  it("keeps newString as written when it already has the file's indentation", () => {
    const result = run("foo()\nbar()", "    foo()\n    bar()", "    foo()\n    baz()")
    expect(result).toEqual({
      text: "    foo()\n    baz()",
      note: "newString kept as written: it already has the file's indentation",
    })
  })

  it("never indents below column zero", () => {
    const result = run("        a", "  a", "b\n        a", { kind: "space", width: 2 })
    expect(result?.text).toBe("b\n  a")
  })

  it("leaves a blank newString alone", () => {
    expect(run("  a", "\ta", "")).toBeUndefined()
  })
})
