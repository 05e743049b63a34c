import { describe, expect, it } from "vitest"
import { asSentence } from "./sentence.ts"

describe("asSentence", () => {
  it.each([
    ["connect ECONNREFUSED 127.0.0.1:1", "connect ECONNREFUSED 127.0.0.1:1."],
    ["Not found.", "Not found."],
    ["Is it there?", "Is it there?"],
    ['It said "stop."', 'It said "stop."'],
    ["  spaced out  ", "spaced out."],
  ])("%j → %j", (text, sentence) => {
    expect(asSentence(text)).toBe(sentence)
  })
})
