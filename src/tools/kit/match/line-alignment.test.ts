import { describe, expect, it } from "vitest"
import { alignedWindows, MAX_BLANK_LINE_DIFFERENCE } from "./line-alignment.ts"
import { MatchContext } from "./match-context.ts"

function alignments(content: string, find: string, blankLines: boolean, partial: boolean) {
  return [...alignedWindows(new MatchContext(content, find), { blankLines, partial })].map(
    (candidate) => candidate.alignment,
  )
}

describe("alignedWindows", () => {
  it("pairs lines one to one when the blank lines agree", () => {
    expect(alignments("x\na\n\nb\n", "a\n\nb", false, false)).toEqual([
      { first: 1, count: 3, fileLineOf: [0, 1, 2], firstColumn: 0 },
    ])
  })

  it("leaves oldString's blank lines unpaired when the file's run is longer or shorter", () => {
    expect(alignments("a\n\n\nb\n", "a\n\nb", true, false)).toEqual([
      { first: 0, count: 4, fileLineOf: [0, -1, 3], firstColumn: 0 },
    ])
    expect(alignments("a\nb\n", "a\n\nb", true, false)).toEqual([
      { first: 0, count: 2, fileLineOf: [0, -1, 1], firstColumn: 0 },
    ])
  })

  it(`allows at most ${MAX_BLANK_LINE_DIFFERENCE} blank lines more or less in a run`, () => {
    expect(alignments("a\n\n\nb\n", "a\nb", true, false)).toHaveLength(1)
    expect(alignments("a\n\n\n\nb\n", "a\nb", true, false)).toEqual([])
  })

  it("records the columns of partial first and last lines", () => {
    expect(alignments("let y = f(x)\nuse(y)\nreturn g(y)\n", "f(x)\nuse(y)\nreturn g(", true, true)).toEqual([
      { first: 0, count: 3, fileLineOf: [0, 1, 2], firstColumn: 8, lastColumn: 9 },
    ])
  })

  it("refuses a partial first line that starts inside a word", () => {
    expect(alignments("let total = f(x)\nuse(total)\n", "tal = f(x)\nuse(total)", true, true)).toEqual([])
  })
})
