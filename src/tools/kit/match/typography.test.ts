import { describe, expect, it } from "vitest"
import { foldKey, foldLine, typographySpots } from "./typography.ts"

describe("foldLine", () => {
  it.each<[string, string, string]>([
    ["curly double quotes", "say “hi”", 'say "hi"'],
    ["curly single quotes and apostrophes", "‘it’s’", "'it's'"],
    ["low and reversed quotes, primes", "„a‟ ‚b‛ 5′ 6″", "\"a\" 'b' 5' 6\""],
    ["en and em dashes, the minus sign", "1–2 a—b (−3)", "1-2 a-b (-3)"],
    [
      "a run of dashes with the spaces around it is one dash",
      "a -- b, c --- d, e —— f, g - h",
      "a-b, c-d, e-f, g-h",
    ],
    ["an ellipsis is three dots", "wait…", "wait..."],
    ["no-break and narrow no-break spaces", "10\u00a0GB «\u202fx\u202f»", "10 GB « x »"],
    ["whitespace runs and the ends", "\t  a \t b  ", "a b"],
    ["plain ASCII stays", "const x = a * b", "const x = a * b"],
    ["a blank line folds to nothing", " \t\u00a0", ""],
    ["a list marker and a negative number", "-  item  -1 and – 2", "-item-1 and-2"],
    ["everything at once", "\t“It’s”\u00a0—  fine…  ‘ok’ -- 3–4 ", "\"It's\"-fine... 'ok'-3-4"],
  ])("%s", (_, line, folded) => {
    expect(foldLine(line).text).toBe(folded)
    expect(foldKey(line)).toBe(folded)
  })

  it("says where each folded character came from", () => {
    const line = "  a…—b"
    const folded = foldLine(line)
    expect(folded.text).toBe("a...-b")
    expect(folded.from).toEqual([2, 3, 3, 3, 4, 5])
    expect(folded.to).toEqual([3, 4, 4, 4, 5, 6])
  })
})

describe("typographySpots", () => {
  it.each<[string, string, string, { oldFrom: number; oldTo: number; file: string }[]]>([
    [
      "quotes",
      '"a"',
      "“a”",
      [
        { oldFrom: 0, oldTo: 1, file: "“" },
        { oldFrom: 2, oldTo: 3, file: "”" },
      ],
    ],
    ["three dots for an ellipsis", "go...", "go…", [{ oldFrom: 2, oldTo: 5, file: "…" }]],
    ["two hyphens for an em dash", "a--b", "a—b", [{ oldFrom: 1, oldTo: 3, file: "—" }]],
    ["a space for a no-break space", "10 GB", "10\u00a0GB", [{ oldFrom: 2, oldTo: 3, file: "\u00a0" }]],
    ["the reverse direction", "it’s", "it's", [{ oldFrom: 2, oldTo: 3, file: "'" }]],
    [
      "a run of hyphens of another length",
      "run -force",
      "run --force",
      [{ oldFrom: 4, oldTo: 5, file: "--" }],
    ],
    ["none: only plain whitespace differs", "a  b", "a b", []],
    ["none: the lines say different things", '"a"', "“b”", []],
  ])("%s", (_, oldLine, fileLine, spots) => {
    expect(typographySpots(oldLine, fileLine)).toEqual(spots)
  })
})
