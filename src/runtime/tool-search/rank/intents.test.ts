import { describe, expect, it } from "vitest"
import { intentTerms } from "./intents.ts"
import { terms } from "./terms.ts"

const has = (text: string, word: string) => intentTerms(text).has(terms(word)[0]!)

describe("intentTerms", () => {
  it("maps how a task says it to the words tools use", () => {
    expect(has("tell the team the release is out", "send")).toBe(true)
    expect(has("tell the team the release is out", "message")).toBe(true)
    expect(has("tidy up old branches", "delete")).toBe(true)
    expect(has("remind me on Friday", "reminder")).toBe(true)
  })

  it("matches phrases with stop words and gaps of up to three words", () => {
    expect(has("find out who owns this", "search")).toBe(true)
    expect(has("let the whole team know", "send")).toBe(true)
    expect(has("let the whole backend team know", "send")).toBe(false)
  })

  it("gives the English words (and Chinese synonyms) for Chinese words of a request", () => {
    expect(has("明天上海到北京还有哪些航班", "flight")).toBe(true)
    expect(has("从北京到天津开车怎么走", "driving")).toBe(true)
    expect(intentTerms("从北京到天津开车怎么走").has("路线")).toBe(true)
    expect([...intentTerms("从北京到天津开车怎么走")].some((term) => term.length === 1)).toBe(false)
  })

  it("runs one way and gives nothing for words outside the table", () => {
    expect(has("send a message", "tell")).toBe(false)
    expect(intentTerms("zebra giraffe")).toEqual(new Set())
  })
})
