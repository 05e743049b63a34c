import { describe, expect, it } from "vitest"
import { summaryOf } from "./summary.ts"

describe("summaryOf", () => {
  it("gives the first sentence with whitespace collapsed", () => {
    expect(summaryOf("Create a new issue   in a\nrepository. Requires push access.")).toBe(
      "Create a new issue in a repository.",
    )
  })

  it("ends a Chinese sentence at 。", () => {
    expect(summaryOf("查询城市天气。返回温度和湿度。")).toBe("查询城市天气。")
  })

  it("says when there is no description", () => {
    expect(summaryOf("")).toBe("(no description)")
    expect(summaryOf("  \n ")).toBe("(no description)")
  })

  it("cuts a long first sentence to at most 120 characters, at a word, marked with …", () => {
    const line = summaryOf(`${"word ".repeat(100)}end.`)
    expect([...line].length).toBeLessThanOrEqual(120)
    expect(line.endsWith("word…")).toBe(true)
    expect(summaryOf("x".repeat(20_000))).toHaveLength(120)
  })

  it("does not take a dot inside a word or number as the end", () => {
    expect(summaryOf("Reads v1.2 config files from example.com. Then more.")).toBe(
      "Reads v1.2 config files from example.com.",
    )
  })
})

describe("summaryOf: structured descriptions", () => {
  it("does not end the line at an enumerator or an abbreviation", () => {
    expect(summaryOf("🎯 Purpose:\n  1. Retrieves a list of objects. 2. More.")).toBe(
      "🎯 Purpose: 1. Retrieves a list of objects.",
    )
    expect(summaryOf("Find files, e.g. logs. Then more.")).toBe("Find files, e.g. logs.")
  })
})
