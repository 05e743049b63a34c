import { describe, expect, it } from "vitest"
import { expand } from "./synonyms.ts"
import { terms } from "./terms.ts"

const of = (query: string) => expand(terms(query))

describe("expand", () => {
  it("brings a word's group, the query's own words left out", () => {
    const words = of("fetch repo")
    expect(words).toContain("get")
    expect(words).toContain("repository")
    expect(words).not.toContain("fetch")
  })

  it("matches phrases as consecutive words, and gives a phrase's words alone", () => {
    expect(of("pull request")).toContain("pr")
    expect([...of("pr")]).toEqual(expect.arrayContaining(["pull", "request", "merg"]))
  })

  it("words with several senses are found as synonyms but bring no group of their own", () => {
    expect(of("call")).toEqual(new Set())
    expect(of("execute")).toContain("call")
    expect(of("record")).toEqual(new Set())
    expect(of("row")).toContain("record")
  })

  it("gives nothing for words outside the table", () => {
    expect(of("zebra")).toEqual(new Set())
  })
})
