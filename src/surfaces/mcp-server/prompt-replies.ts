// Replies an MCP session (session.ts) gives the asks and questions its calls raised: from a client's
// form, or from the session's fallback when nobody can be asked. A reply that finds its ask or question
// already settled (answered elsewhere, or withdrawn when the call was aborted) changes nothing.

import type { Toolbelt } from "../../compose/toolbelt.ts"
import { logger } from "../../platform/util/log.ts"
import type { PermissionAsked } from "../../runtime/bus/events.ts"
import type { QuestionReply, QuestionRequest } from "../../runtime/question/question.ts"
import type { AskAnswer } from "./ask-form.ts"

const log = logger("mcp")

export function replyQuestions(toolbelt: Toolbelt, request: QuestionRequest, reply: QuestionReply): void {
  const { questions } = toolbelt
  try {
    if (reply === "dismiss") questions.reject({ requestID: request.id })
    else if ("unanswered" in reply) questions.reject({ requestID: request.id, unanswered: reply.unanswered })
    else questions.reply({ requestID: request.id, answers: reply })
  } catch (error) {
    log.debug("question reply not applied", { id: request.id, error: String(error) })
  }
}

export function replyAsk(toolbelt: Toolbelt, ask: PermissionAsked, answer: AskAnswer): void {
  try {
    toolbelt.permission.reply({
      requestID: ask.id,
      reply: answer.reply,
      ...(answer.message ? { message: answer.message } : {}),
      ...(answer.unanswered ? { unanswered: answer.unanswered } : {}),
    })
  } catch (error) {
    log.debug("permission reply not applied", { id: ask.id, error: String(error) })
  }
}
