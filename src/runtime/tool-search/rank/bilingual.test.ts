import { describe, expect, it } from "vitest"
import { bilingualTerms } from "./bilingual.ts"
import { terms } from "./terms.ts"

describe("bilingualTerms", () => {
  it("gives the English words and the Chinese synonyms tools use for a request's Chinese words", () => {
    expect(bilingualTerms("明天上海到北京还有哪些航班").has("flight")).toBe(true)
    const route = bilingualTerms("从北京到天津开车怎么走")
    expect(route.has(terms("driving")[0]!)).toBe(true)
    expect(route.has("路线")).toBe(true)
  })

  it("leaves out single characters, and gives nothing for text without Han characters", () => {
    expect([...bilingualTerms("从北京到天津开车怎么走")].some((term) => term.length === 1)).toBe(false)
    expect(bilingualTerms("weather in Beijing")).toEqual(new Set())
  })
})
