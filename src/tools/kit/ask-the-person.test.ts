import { describe, expect, it } from "vitest"
import { PermissionRejectedError } from "../../runtime/permission/errors.ts"
import { database } from "../../runtime/question/fixtures/questions.ts"
import { QuestionService } from "../../runtime/question/service.ts"
import type { AskInput, Context } from "../../runtime/tool/context.ts"
import { isToolFailure } from "../../runtime/tool/index.ts"
import { personToAsk, WHERE_SOMEONE_ANSWERS } from "./ask-the-person.ts"

/** A call's context whose permission asks are recorded (and refused with `refuse`). */
function context(extra: Record<string, unknown>, refuse = false) {
  const asks: AskInput[] = []
  const abort = new AbortController()
  const ctx: Context = {
    sessionID: "ses_1",
    messageID: "msg_1",
    agent: "build",
    callID: "call_1",
    abort: abort.signal,
    extra: { directory: "/project", ...extra },
    messages: [],
    metadata: () => {},
    ask: async (input) => {
      asks.push(input)
      if (refuse) throw new PermissionRejectedError()
    },
  }
  return { ctx, asks, abort }
}

describe("personToAsk", () => {
  it("asks the tool's own permission for everything, then puts questions to the person as the call's", async () => {
    const questions = new QuestionService()
    const { ctx, asks } = context({ questions })
    const askThePerson = await personToAsk(ctx, "question", "nobody")
    expect(asks).toEqual([{ permission: "question", patterns: ["*"], always: ["*"], metadata: {} }])
    const answered = askThePerson([database])
    const [pending] = questions.list()
    expect(pending).toMatchObject({
      sessionID: "ses_1",
      questions: [database],
      tool: { messageID: "msg_1", callID: "call_1" },
    })
    questions.reply({ requestID: pending!.id, answers: [["Redis"]] })
    expect(await answered).toEqual([["Redis"]])
  })

  it("fails saying why where no question flow is, and only once the permission allowed the call", async () => {
    const { ctx, asks } = context({})
    const failure = await personToAsk(ctx, "plan_exit", "No one can approve the plan here.").catch((e) => e)
    expect(isToolFailure(failure) && failure.message).toBe("No one can approve the plan here.")
    expect(asks).toHaveLength(1)
    const refused = context({}, true)
    await expect(personToAsk(refused.ctx, "plan_exit", "nobody")).rejects.toBeInstanceOf(
      PermissionRejectedError,
    )
  })

  it("withdraws the questions when the call is aborted", async () => {
    const questions = new QuestionService()
    const { ctx, abort } = context({ questions })
    const answered = (await personToAsk(ctx, "question", "nobody"))([database])
    abort.abort(new Error("call aborted"))
    await expect(answered).rejects.toThrow("call aborted")
    expect(questions.list()).toEqual([])
  })

  it("is offered only where someone can answer", () => {
    expect(WHERE_SOMEONE_ANSWERS.available?.({ interactive: false })).toBe(false)
    expect(WHERE_SOMEONE_ANSWERS.available?.({ interactive: true })).toBe(true)
    expect(WHERE_SOMEONE_ANSWERS.available?.({})).toBe(true)
  })
})
