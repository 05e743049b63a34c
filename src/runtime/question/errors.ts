/**
 * The person dismissed the question, or said no where no ends the matter (a plan they did not approve):
 * the message says which. Stops the turn.
 */
export class QuestionRejectedError extends Error {
  override readonly name = "QuestionRejectedError"
  constructor(message = "The user dismissed this question.") {
    super(message)
  }
}

/**
 * Nobody could be asked (no terminal, an MCP client that cannot show forms). Not a person's "no", so it
 * does not claim one; the model reads why. Stops the turn, like an ask no one could answer.
 */
export class QuestionUnansweredError extends Error {
  override readonly name = "QuestionUnansweredError"
  readonly reason: string
  constructor(reason: string) {
    super(`This call needs the user's answer and no one could be asked, so it did not run: ${reason}`)
    this.reason = reason
  }
}

/** A reply named a request that is not pending (answered already, aborted, or never asked). */
export class QuestionNotFoundError extends Error {
  override readonly name = "QuestionNotFoundError"
  readonly requestID: string
  constructor(requestID: string) {
    super(`No pending question ${requestID}: it was already answered, dismissed, aborted or never asked.`)
    this.requestID = requestID
  }
}

/** A reply whose answers do not fit the questions (a label not offered, several where one is asked). */
export class QuestionAnswerError extends Error {
  override readonly name = "QuestionAnswerError"
  readonly requestID: string
  constructor(requestID: string, problem: string) {
    super(`The answers to question ${requestID} do not fit it: ${problem}. The question is still pending.`)
    this.requestID = requestID
  }
}

/** An error that ends the asking call: the person dismissed the question, or no one could answer. */
export function isQuestionError(error: unknown): error is QuestionRejectedError | QuestionUnansweredError {
  return error instanceof QuestionRejectedError || error instanceof QuestionUnansweredError
}
