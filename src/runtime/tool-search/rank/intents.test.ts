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

  it("reads 'open' by what follows it", () => {
    expect(has("open an issue with the details", "create")).toBe(true)
    expect(has("open the staging site", "navigate")).toBe(true)
    expect(has("open the staging site", "create")).toBe(false)
  })

  it("runs one way and gives nothing for words outside the table", () => {
    expect(has("send a message", "tell")).toBe(false)
    expect(intentTerms("zebra giraffe")).toEqual(new Set())
  })
})
