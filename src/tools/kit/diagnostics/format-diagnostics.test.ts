import { describe, expect, it } from "vitest"
import type { Diagnostic } from "vscode-languageserver-types"
import { formatEditDiagnostics, formatFileErrors } from "./format-diagnostics.ts"

const at = (line: number, character: number, message: string, severity = 1): Diagnostic => ({
  range: { start: { line, character }, end: { line, character: character + 1 } },
  message,
  severity: severity as Diagnostic["severity"],
})

describe("formatFileErrors", () => {
  it.each([
    ["no diagnostics", undefined, ""],
    ["warnings and hints only", [at(0, 0, "unused", 2), at(1, 0, "hint", 4)], ""],
    [
      "errors 1-based, warnings left out",
      [at(2, 13, "Type 'number' is not assignable to type 'string'."), at(3, 0, "unused", 2)],
      `<diagnostics file="/p/a.ts">\nERROR [3:14] Type 'number' is not assignable to type 'string'.\n</diagnostics>`,
    ],
    [
      "a message on several lines kept on one",
      [at(0, 0, "first\n  second")],
      `<diagnostics file="/p/a.ts">\nERROR [1:1] first   second\n</diagnostics>`,
    ],
    [
      "markup messages",
      [{ ...at(0, 0, ""), message: { kind: "markdown", value: "**bad**" } } as unknown as Diagnostic],
      `<diagnostics file="/p/a.ts">\nERROR [1:1] **bad**\n</diagnostics>`,
    ],
  ])("%s", (_, diagnostics, expected) => {
    expect(formatFileErrors("/p/a.ts", diagnostics)).toBe(expected)
  })

  it("shows 20 errors per file and counts the rest", () => {
    const many = Array.from({ length: 23 }, (_, i) => at(i, 0, `e${i}`))
    const lines = formatFileErrors("/p/a.ts", many).split("\n")
    expect(lines).toHaveLength(1 + 20 + 1 + 1)
    expect(lines[20]).toBe("ERROR [20:1] e19")
    expect(lines[21]).toBe("... and 3 more")
  })
})

describe("formatEditDiagnostics", () => {
  const show = (file: string) => file.replace("/p/", "")

  it("nothing when no file has errors", () => {
    expect(
      formatEditDiagnostics({
        changed: [{ file: "/p/a.ts", diagnostics: [at(0, 0, "w", 2)] }],
        others: {},
        show,
      }),
    ).toBe("")
  })

  it('"this file" for a one-file edit, the path for several, then up to 5 other files', () => {
    expect(
      formatEditDiagnostics({
        changed: [{ file: "/p/a.ts", diagnostics: [at(0, 0, "bad")] }],
        others: {},
        show,
      }),
    ).toBe(
      `\n\nLSP errors detected in this file, please fix:\n<diagnostics file="/p/a.ts">\nERROR [1:1] bad\n</diagnostics>`,
    )
    const others = Object.fromEntries(
      Array.from({ length: 7 }, (_, i) => [`/p/o${i}.ts`, [at(0, 0, `o${i}`)]]),
    )
    const text = formatEditDiagnostics({
      changed: [
        { file: "/p/a.ts", diagnostics: [at(0, 0, "bad")] },
        { file: "/p/b.ts", diagnostics: [] },
      ],
      others,
      show,
    })
    expect(text).toContain("LSP errors detected in a.ts, please fix:")
    expect(text).not.toContain("b.ts")
    expect(text).toContain("\n\nLSP errors detected in other files:\n")
    expect(text.match(/<diagnostics file="\/p\/o/g)).toHaveLength(5)
  })
})
