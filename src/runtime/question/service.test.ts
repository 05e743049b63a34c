import { describe, expect, it } from "vitest"
import { Bus } from "../bus/bus.ts"
import type { Event } from "../bus/events.ts"
import {
  QuestionAnswerError,
  QuestionNotFoundError,
  QuestionRejectedError,
  QuestionUnansweredError,
} from "./errors.ts"
import type { Question } from "./question.ts"
import { QuestionService } from "./service.ts"

const pick: Question = {
  question: "Which database?",
  header: "Database",
  options: [
    { label: "SQLite", description: "one file" },
    { label: "Postgres", description: "a server" },
  ],
}
const several: Question = { ...pick, question: "Which features?", header: "Features", multiple: true }
const closed: Question = { ...pick, custom: false }

function recorded(bus: Bus): Event[] {
  const events: Event[] = []
  bus.subscribe("*", (event) => {
    events.push(event)
  })
  return events
}

describe("QuestionService", () => {
  it("publishes each request, waits for the reply, and publishes the answers", async () => {
    const bus = new Bus()
    const events = recorded(bus)
    const service = new QuestionService({ publish: bus.publish })
    const asking = service.ask({
      sessionID: "ses_1",
      questions: [pick, several],
      tool: { messageID: "msg_1", callID: "call_1" },
    })
    const [request] = service.list("ses_1")
    expect(request).toMatchObject({
      sessionID: "ses_1",
      questions: [pick, several],
      tool: { callID: "call_1" },
    })
    expect(request!.id).toMatch(/^que_/)
    expect(service.list("ses_other")).toEqual([])
    service.reply({ requestID: request!.id, answers: [["SQLite"], ["fast", "small"]] })
    expect(await asking).toEqual([["SQLite"], ["fast", "small"]])
    expect(service.list()).toEqual([])
    await bus.idle()
    expect(events.map((event) => event.type)).toEqual(["question.asked", "question.replied"])
    expect(events[1]!.properties).toEqual({
      sessionID: "ses_1",
      requestID: request!.id,
      answers: [["SQLite"], ["fast", "small"]],
    })
  })

  it("records a question left without an answer as unanswered", async () => {
    const service = new QuestionService()
    const asking = service.ask({ sessionID: "s", questions: [pick, several] })
    service.reply({ requestID: service.list()[0]!.id, answers: [["Postgres"]] })
    expect(await asking).toEqual([["Postgres"], []])
  })

  it("refuses answers that do not fit, and keeps the request pending", async () => {
    const service = new QuestionService()
    const asking = service.ask({ sessionID: "s", questions: [pick, closed] })
    const id = service.list()[0]!.id
    expect(() => service.reply({ requestID: id, answers: [["SQLite", "Postgres"]] })).toThrow(
      /question 1 takes one answer, got 2/,
    )
    expect(() => service.reply({ requestID: id, answers: [[], ["MySQL"]] })).toThrow(QuestionAnswerError)
    expect(() => service.reply({ requestID: id, answers: [[], [], []] })).toThrow(/3 answers for 2/)
    expect(service.list()).toHaveLength(1)
    // A typed answer is fine where the question allows it.
    service.reply({ requestID: id, answers: [["MariaDB"], ["Postgres"]] })
    expect(await asking).toEqual([["MariaDB"], ["Postgres"]])
    expect(() => service.reply({ requestID: id, answers: [] })).toThrow(QuestionNotFoundError)
  })

  it("a dismissal fails the asking call with QuestionRejectedError and is published", async () => {
    const bus = new Bus()
    const events = recorded(bus)
    const service = new QuestionService({ publish: bus.publish })
    const asking = service.ask({ sessionID: "ses_1", questions: [pick] })
    const id = service.list()[0]!.id
    service.reject({ requestID: id })
    await expect(asking).rejects.toBeInstanceOf(QuestionRejectedError)
    await expect(asking).rejects.toThrow("The user dismissed this question.")
    await bus.idle()
    expect(events.at(-1)).toEqual({
      type: "question.rejected",
      properties: { sessionID: "ses_1", requestID: id },
    })
  })

  it("without anyone to ask, fails with QuestionUnansweredError naming why", async () => {
    const service = new QuestionService({
      answer: async () => ({ unanswered: "stdin is not a terminal" }),
    })
    const asking = service.ask({ sessionID: "s", questions: [pick] })
    await expect(asking).rejects.toBeInstanceOf(QuestionUnansweredError)
    await expect(asking).rejects.toThrow(/no one could be asked.*stdin is not a terminal/)
  })

  it("takes the answers an answer function gives, and its dismissal", async () => {
    const answers = [[["Postgres"]], "dismiss"] as const
    let next = 0
    const service = new QuestionService({ answer: async () => answers[next++]! })
    expect(await service.ask({ sessionID: "s", questions: [pick] })).toEqual([["Postgres"]])
    await expect(service.ask({ sessionID: "s", questions: [pick] })).rejects.toBeInstanceOf(
      QuestionRejectedError,
    )
  })

  it("an answer function that fails leaves the call unanswered, saying why", async () => {
    const service = new QuestionService({
      answer: async () => {
        throw new Error("the terminal went away")
      },
    })
    await expect(service.ask({ sessionID: "s", questions: [pick] })).rejects.toThrow(
      /could not be shown: the terminal went away/,
    )
  })

  it("an abort withdraws the request (published as rejected) and rejects with the signal's reason", async () => {
    const bus = new Bus()
    const events = recorded(bus)
    const service = new QuestionService({ publish: bus.publish })
    const abort = new AbortController()
    const asking = service.ask({ sessionID: "s", questions: [pick] }, { signal: abort.signal })
    const id = service.list()[0]!.id
    abort.abort(new Error("stopped"))
    await expect(asking).rejects.toThrow("stopped")
    expect(service.list()).toEqual([])
    expect(() => service.reply({ requestID: id, answers: [["SQLite"]] })).toThrow(QuestionNotFoundError)
    await bus.idle()
    expect(events.map((event) => event.type)).toEqual(["question.asked", "question.rejected"])
  })

  it("dispose ends every pending request, saying toolbelt stopped, not that the user dismissed it", async () => {
    const service = new QuestionService()
    const first = service.ask({ sessionID: "a", questions: [pick] })
    const second = service.ask({ sessionID: "b", questions: [pick] })
    service.dispose()
    for (const asked of [first, second]) {
      await expect(asked).rejects.toBeInstanceOf(QuestionUnansweredError)
      await expect(asked).rejects.toThrow(/toolbelt stopped before anyone answered/)
    }
    expect(service.list()).toEqual([])
  })
})
