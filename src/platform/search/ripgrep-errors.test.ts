import { describe, expect, it } from "vitest"
import { failure, noFiles, patternProblem } from "./ripgrep-errors.ts"

describe("reading rg's stderr", () => {
  it("names the problem of a bad pattern, and nothing else", () => {
    const stderr = "regex parse error:\n    (a\n    ^\nerror: unclosed group\n"
    expect(patternProblem(stderr)).toBe("unclosed group")
    expect(patternProblem("the literal '\"\\n\"' is not allowed in a regex")).toBe(
      'the literal "\\n" is not allowed: grep matches one line at a time',
    )
    expect(patternProblem("rg: ./x: Permission denied (os error 13)")).toBeUndefined()
  })

  it("tells nothing searched from a failure, and quotes a failure's first line", () => {
    expect(noFiles("No files were searched, which means ripgrep probably applied a filter")).toBe(true)
    expect(noFiles("  \n")).toBe(true)
    expect(noFiles("rg: error parsing flag")).toBe(false)
    expect(failure("rg: error parsing flag\nmore\n")).toBe("ripgrep failed: rg: error parsing flag")
  })
})
