import { describe, expect, it } from "vitest"
import { describeClosest, findClosestRegion, lineDiff } from "./closest.ts"

const file = [
  "import { a } from './a'",
  "",
  "export function total(items) {",
  "  let sum = 0",
  "  for (const item of items) {",
  "    sum += item.price",
  "  }",
  "  return sum",
  "}",
  "",
  "export const name = 'shop'",
]

describe("findClosestRegion", () => {
  it("finds the window whose lines are most like oldString's", () => {
    const region = findClosestRegion({
      fileLines: file,
      findLines: ["for (const item of items) {", "  sum += item.cost", "}"],
    })
    expect(region).toMatchObject({ first: 4, count: 3 })
    expect(region!.similarity).toBeGreaterThan(0.8)
  })

  it("finds a line with a typo when no line is equal (bigram pass)", () => {
    const region = findClosestRegion({ fileLines: file, findLines: ["  retrun sum"] })
    expect(region).toMatchObject({ first: 7, count: 1 })
  })

  it("is undefined for a blank oldString or an empty file", () => {
    expect(findClosestRegion({ fileLines: file, findLines: ["", "  "] })).toBeUndefined()
    expect(findClosestRegion({ fileLines: [], findLines: ["a"] })).toBeUndefined()
  })

  it("keeps the window inside the file", () => {
    const region = findClosestRegion({
      fileLines: file,
      findLines: ["export const name = 'shop'", "more", "lines"],
    })
    expect(region).toMatchObject({ first: 8, count: 3 })
  })

  it("stays fast on a big file with many similar lines", () => {
    const big = Array.from({ length: 20_000 }, (_, i) => `\tconst v${i} = compute(${i})`)
    const region = findClosestRegion({ fileLines: big, findLines: ["const v19990 = compute(19991)"] })
    expect(region?.first).toBe(19_990)
  })
})

describe("lineDiff", () => {
  it("marks lines only in the first list -, only in the second +, with indexes in the second", () => {
    expect(lineDiff(["a", "b", "c"], ["a", "x", "c", "d"])).toEqual([
      { op: " ", text: "a", index: 0 },
      { op: "-", text: "b" },
      { op: "+", text: "x", index: 1 },
      { op: " ", text: "c", index: 2 },
      { op: "+", text: "d", index: 3 },
    ])
    expect(lineDiff([], [])).toEqual([])
  })
})

describe("describeClosest", () => {
  it("names the region with file line numbers and shows the diff", () => {
    const text = describeClosest({
      fileLines: file,
      findLines: ["for (const item of items) {", "    sum += item.cost", "  }"],
    })
    expect(text).toBe(
      [
        `The closest region of the file is lines 5-7 (90% similar). How oldString differs from it ("-" only in oldString, "+" only in the file, numbers are file lines):`,
        "  - for (const item of items) {",
        "  -     sum += item.cost",
        "5 +   for (const item of items) {",
        "6 +     sum += item.price",
        "7     }",
        "1 line differ only in whitespace.",
      ].join("\n"),
    )
  })

  it("says when the file has tabs where oldString has spaces", () => {
    const text = describeClosest({
      fileLines: ["\tif (a) {", "\t\tb(1)", "\t}"],
      findLines: ["    if (a) {", "        b(2)", "    }"],
    })
    expect(text).toContain(
      "2 lines differ only in whitespace (the file indents with tabs, oldString with spaces).",
    )
    expect(text).toContain("lines 1-3")
  })

  it("says when nothing resembles oldString", () => {
    expect(describeClosest({ fileLines: file, findLines: ["zzzz qqqq"] })).toBe(
      "No region of the file resembles oldString; read the file to see its current content.",
    )
  })

  it("shows long regions as changes with context", () => {
    const long = Array.from({ length: 60 }, (_, i) => `line ${i}`)
    const find = long.slice(10, 50).map((line, i) => (i === 20 ? "changed" : line))
    const text = describeClosest({ fileLines: long, findLines: find })
    expect(text).toContain("lines 11-50 (")
    expect(text).toContain("   - changed\n31 + line 30")
    expect(text.split("\n").length).toBeLessThan(15)
  })
})
