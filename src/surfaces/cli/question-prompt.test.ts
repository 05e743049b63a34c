import { describe, expect, it } from "vitest"
import type { Question } from "../../runtime/question/question.ts"
import { choiceCount, parseChoice } from "./question-prompt.ts"

const options = [
  { label: "SQLite", description: "" },
  { label: "Redis", description: "" },
]
const single: Question = { question: "Which?", header: "DB", options }
const several: Question = { ...single, multiple: true }
const closed: Question = { ...single, custom: false }

describe("parseChoice", () => {
  it.each([
    ["a number picks its option", "2", single, { kind: "picked", labels: ["Redis"], typeOwn: false }],
    [
      "the number after the options asks for one's own",
      "3",
      single,
      { kind: "picked", labels: [], typeOwn: true },
    ],
    ["0 dismisses", " 0 ", single, { kind: "dismiss" }],
    ["text is one's own answer", "Postgres", single, { kind: "typed", text: "Postgres" }],
    [
      "several numbers, commas or spaces",
      "2, 1",
      several,
      { kind: "picked", labels: ["Redis", "SQLite"], typeOwn: false },
    ],
    ["several with one's own", "1 3", several, { kind: "picked", labels: ["SQLite"], typeOwn: true }],
    ["a repeated number counts once", "1,1", several, { kind: "picked", labels: ["SQLite"], typeOwn: false }],
  ] as const)("%s", (_name, line, question, choice) => {
    expect(parseChoice(line, question)).toEqual(choice)
  })

  it.each([
    ["empty", "", single],
    ["out of range", "4", single],
    ["several for a single choice", "1,2", single],
    ["text where only the options are allowed", "Postgres", closed],
    ["the own-answer number where there is none", "3", closed],
  ] as const)("asks again: %s", (_name, line, question) => {
    expect(parseChoice(line, question)).toMatchObject({ kind: "retry" })
  })

  it("says what to type", () => {
    expect(parseChoice("9", single)).toEqual({
      kind: "retry",
      hint: "Type a number from 1 to 3, or your own answer; 0 dismisses.",
    })
    expect(parseChoice("", several)).toEqual({
      kind: "retry",
      hint: "Type one or more of the numbers 1-3 (e.g. 1,3), or your own answer; 0 dismisses.",
    })
    expect(parseChoice("x", closed)).toEqual({
      kind: "retry",
      hint: "Type a number from 1 to 2; 0 dismisses.",
    })
    expect(choiceCount(closed)).toBe(2)
  })
})
