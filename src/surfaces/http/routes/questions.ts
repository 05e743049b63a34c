// Questions tools put to a person (the question tool, a plan to approve): the pending ones, and the
// answers or a dismissal.
import { z } from "zod"
import { QuestionAnswerError, QuestionNotFoundError } from "../../../runtime/question/errors.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"
import { AnswerBody, IdParams, QuestionRequest } from "../schemas.ts"
import { pendingRoute } from "./pending.ts"

const Answered = z.object({ requestID: z.string(), answers: z.array(z.array(z.string())) })
const Dismissed = z.object({ requestID: z.string() })

export function questionRoutes(deps: ApiDeps): AnyRoute[] {
  const { questions } = deps.toolbelt
  /** Runs a reply, turning the question flow's errors into the API's. */
  const applied = <T>(id: string, apply: () => T): T => {
    try {
      return apply()
    } catch (failure) {
      if (failure instanceof QuestionNotFoundError) {
        throw new ApiError(
          404,
          `No pending question ${id}: it was answered or dismissed already, or its call ended. List the pending ones with GET /api/questions.`,
        )
      }
      if (failure instanceof QuestionAnswerError) throw new ApiError(400, failure.message)
      throw failure
    }
  }
  const notFound = errorSpec("No such pending question.")
  return [
    pendingRoute("questions", {
      id: "listQuestions",
      summary: "The questions waiting for answers, oldest first",
      description:
        "The pending questions. On a PostgreSQL store shared by several instances, every instance's: answers given here to another instance's question are checked here and reach that instance, whose call goes on with them.",
      request: QuestionRequest,
      list: (sessionID) => questions.list(sessionID),
    }),
    route({
      id: "answerQuestion",
      method: "post",
      path: "/api/questions/:id/reply",
      tag: "questions",
      summary: "Answers a request's questions: the asking call goes on with the answers",
      params: IdParams,
      body: AnswerBody,
      responses: {
        200: { description: "The answers, as recorded.", schema: Answered },
        400: errorSpec("Answers that do not fit the questions (the request stays pending)."),
        404: notFound,
      },
      handler: ({ params, body }) =>
        applied(params.id, () => {
          const asked = questions.list().find((request) => request.id === params.id)?.questions ?? []
          questions.reply({ requestID: params.id, answers: body.answers })
          // As recorded: one list per question, an unanswered one empty.
          const answers = asked.map((_, index) => [...(body.answers[index] ?? [])])
          return { requestID: params.id, answers }
        }),
    }),
    route({
      id: "dismissQuestion",
      method: "post",
      path: "/api/questions/:id/reject",
      tag: "questions",
      summary: "Dismisses the questions: the asking call fails and the agent's turn stops",
      params: IdParams,
      responses: { 200: { description: "Dismissed.", schema: Dismissed }, 404: notFound },
      handler: ({ params }) =>
        applied(params.id, () => {
          questions.reject({ requestID: params.id })
          return { requestID: params.id }
        }),
    }),
  ]
}
