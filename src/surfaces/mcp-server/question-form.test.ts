import { describe, expect, it } from "vitest"
import type { QuestionRequest } from "../../runtime/question/question.ts"
import { questionForm, questionReplyOf } from "./question-form.ts"

const request: QuestionRequest = {
  id: "que_1",
  sessionID: "ses_1",
  time: 0,
  questions: [
    {
      question: "Which database?",
      header: "Database",
      options: [
        { label: "SQLite", description: "one file" },
        { label: "Redis", description: "" },
      ],
    },
    {
      question: "Which features?",
      header: "Features",
      options: [
        { label: "Speed", description: "" },
        { label: "Size", description: "" },
      ],
      multiple: true,
    },
    { question: "Go on?", header: "Confirm", options: [{ label: "Yes", description: "" }], custom: false },
  ],
}

describe("questionForm", () => {
  it("shows every question and option in the message, a field per choice and per own answer", () => {
    const form = questionForm(request)
    expect(form.message).toBe(
      [
        "The agent asks these questions:",
        "",
        "Database: Which database?",
        "  - SQLite: one file",
        "  - Redis",
        "",
        "Features: Which features?",
        "  - Speed",
        "  - Size",
        "",
        "Confirm: Go on?",
        "  - Yes",
        "",
        "Decline to dismiss the questions (the agent stops and waits for you).",
      ].join("\n"),
    )
    const properties = form.requestedSchema.properties as Record<string, any>
    expect(Object.keys(properties)).toEqual(["q1", "q1_own", "q2", "q2_own", "q3"])
    expect(properties.q1).toEqual({
      type: "string",
      title: "Database",
      description: "Which database?",
      oneOf: [
        { const: "SQLite", title: "SQLite" },
        { const: "Redis", title: "Redis" },
      ],
    })
    expect(properties.q2).toMatchObject({
      type: "array",
      items: {
        anyOf: [
          { const: "Speed", title: "Speed" },
          { const: "Size", title: "Size" },
        ],
      },
    })
    expect(form.requestedSchema.required).toBeUndefined()
  })

  it("uses enum with enumNames, and a yes/no field per option for several, before 2025-11-25", () => {
    const properties = questionForm(request, { titledEnums: false }).requestedSchema.properties as Record<
      string,
      any
    >
    expect(properties.q1).toMatchObject({
      type: "string",
      enum: ["SQLite", "Redis"],
      enumNames: ["SQLite", "Redis"],
    })
    expect(properties.q2).toBeUndefined()
    expect(properties.q2_1).toEqual({
      type: "boolean",
      title: "Features: Speed",
      description: "Which features?",
    })
    expect(properties.q2_2).toMatchObject({ type: "boolean", title: "Features: Size" })
  })
})

describe("questionReplyOf", () => {
  it("takes the picked labels, the typed answers, and leaves empty what was not answered", () => {
    expect(
      questionReplyOf(request, {
        action: "accept",
        content: { q1: "Redis", q2: ["Size", "Speed"], q2_own: " Cost " },
      }),
    ).toEqual([["Redis"], ["Size", "Speed", "Cost"], []])
  })

  it("lets a typed answer replace a single choice, reads yes/no fields, and drops labels not offered", () => {
    expect(
      questionReplyOf(request, {
        action: "accept",
        content: { q1: "SQLite", q1_own: "Postgres", q2_1: false, q2_2: true, q3: "Maybe" },
      }),
    ).toEqual([["Postgres"], ["Size"], []])
  })

  it.each([{ action: "decline" }, { action: "cancel" }, undefined, "nonsense"])(
    "dismisses on %j",
    (response) => {
      expect(questionReplyOf(request, response)).toBe("dismiss")
    },
  )
})
