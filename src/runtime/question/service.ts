import { ascending } from "../../platform/util/id.ts"
import type { Publish } from "../bus/events.ts"
import {
  QuestionAnswerError,
  QuestionNotFoundError,
  QuestionRejectedError,
  QuestionUnansweredError,
} from "./errors.ts"
import type { AnswerQuestions, Answers, Question, QuestionRequest } from "./question.ts"

/** What a tool asks: its questions, for its session and call. */
export interface AskQuestionsInput {
  readonly sessionID: string
  readonly questions: readonly Question[]
  readonly tool?: { readonly messageID: string; readonly callID: string }
}

export interface QuestionServiceOptions {
  readonly publish?: Publish
  /** Answers every request at once (a terminal prompt); without it requests wait for `reply`. */
  readonly answer?: AnswerQuestions
}

/** An answer handed to the instance whose call waits for the question (the fleet, issue 28). */
export type SharedAnswer =
  | { readonly requestID: string; readonly answers: Answers }
  | { readonly requestID: string; readonly dismissed: true; readonly unanswered?: string }

/**
 * The questions other instances put on a shared store: listed with this service's own; an answer to
 * one of them is checked here and handed on, to be applied by the instance that asked.
 */
export interface SharedQuestions {
  /** The pending questions of every instance (this one's included), of one session when given. */
  list(sessionID?: string): QuestionRequest[]
  /** False when the question is pending nowhere any more. */
  send(answer: SharedAnswer): boolean
}

interface Pending {
  readonly request: QuestionRequest
  readonly resolve: (answers: Answers) => void
  readonly reject: (error: Error) => void
}

/**
 * Puts questions to a person, the way permission asks reach one: every request is published as
 * `question.asked` and waits for an answer from whoever can give it: the surface's `answer` function
 * (a terminal prompt), an MCP client's form, or a library user calling `reply` / `reject`.
 */
export class QuestionService {
  readonly #options: QuestionServiceOptions
  readonly #pending = new Map<string, Pending>()
  #fleet: SharedQuestions | undefined

  constructor(options: QuestionServiceOptions = {}) {
    this.#options = options
  }

  /**
   * Asks, and resolves with the answers (one array of labels per question).
   * 1. Keep a pending request and publish `question.asked`.
   * 2. With an `answer` function, apply what it returns (if the request is still pending by then).
   * 3. Wait for `reply` (the answers), `reject` (`QuestionRejectedError`, or `QuestionUnansweredError`
   *    when nobody could be asked), the abort signal (rejects with its reason) or `dispose`.
   */
  async ask(input: AskQuestionsInput, options: { signal?: AbortSignal } = {}): Promise<Answers> {
    const signal = options.signal
    signal?.throwIfAborted()
    const request: QuestionRequest = {
      id: ascending("que"),
      sessionID: input.sessionID,
      questions: input.questions,
      ...(input.tool ? { tool: { messageID: input.tool.messageID, callID: input.tool.callID } } : {}),
      time: Date.now(),
    }
    const { promise, resolve, reject } = Promise.withResolvers<Answers>()
    const onAbort = () => {
      if (!this.#pending.delete(request.id)) return
      reject(signal?.reason)
      // Withdrawn: tell whoever shows the question that it is gone.
      this.#publishRejected(request)
    }
    const done = () => signal?.removeEventListener("abort", onAbort)
    this.#pending.set(request.id, {
      request,
      resolve: (answers) => {
        done()
        resolve(answers)
      },
      reject: (error) => {
        done()
        reject(error)
      },
    })
    signal?.addEventListener("abort", onAbort, { once: true })
    try {
      this.#options.publish?.("question.asked", request)
    } catch (error) {
      // Nobody was told about the request, so nobody can answer it: do not leave it waiting.
      this.#pending.delete(request.id)
      done()
      throw error
    }
    if (this.#options.answer) void this.#answerWith(this.#options.answer, request, signal)
    return promise
  }

  /** On a shared store: the questions other instances put are listed and answered here too. */
  share(fleet: SharedQuestions | undefined): void {
    this.#fleet = fleet
  }

  /** The pending requests (the fleet's too, when shared), oldest first; of one session when given. */
  list(sessionID?: string): QuestionRequest[] {
    const out: QuestionRequest[] = []
    for (const { request } of this.#pending.values()) {
      if (sessionID === undefined || request.sessionID === sessionID) out.push(request)
    }
    for (const request of this.#fleet?.list(sessionID) ?? []) {
      if (!this.#pending.has(request.id)) out.push(request)
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  /**
   * Answers a request. Unknown → `QuestionNotFoundError`; answers that do not fit the questions (more
   * answers than questions, several labels for a single choice, a label not offered where typing one's
   * own is not allowed) → `QuestionAnswerError`, and the request stays pending. A question without an
   * answer is recorded as unanswered. Publishes `question.replied`. Another instance's question
   * (`share`) is checked the same way here and handed on.
   */
  reply(input: { readonly requestID: string; readonly answers: Answers }): void {
    const pending = this.#pending.get(input.requestID)
    if (!pending) {
      const answers = fitAnswers(this.#elsewhere(input.requestID), input.answers)
      if (!this.#fleet?.send({ requestID: input.requestID, answers }))
        throw new QuestionNotFoundError(input.requestID)
      return
    }
    const answers = fitAnswers(pending.request, input.answers)
    this.#pending.delete(input.requestID)
    pending.resolve(answers)
    this.#options.publish?.("question.replied", {
      sessionID: pending.request.sessionID,
      requestID: pending.request.id,
      answers,
    })
  }

  /**
   * Dismisses a request: the asking call fails with `QuestionRejectedError` (the turn stops), or, with
   * `unanswered`, with `QuestionUnansweredError` saying why nobody could be asked. Publishes
   * `question.rejected`. Another instance's question (`share`) is handed on.
   */
  reject(input: { readonly requestID: string; readonly unanswered?: string }): void {
    const pending = this.#pending.get(input.requestID)
    if (!pending) {
      this.#elsewhere(input.requestID)
      const { unanswered } = input
      const answer = {
        requestID: input.requestID,
        dismissed: true as const,
        ...(unanswered ? { unanswered } : {}),
      }
      if (!this.#fleet?.send(answer)) throw new QuestionNotFoundError(input.requestID)
      return
    }
    this.#pending.delete(input.requestID)
    pending.reject(
      input.unanswered === undefined
        ? new QuestionRejectedError()
        : new QuestionUnansweredError(input.unanswered),
    )
    this.#publishRejected(pending.request)
  }

  /** Ends every pending request (shutdown): no one dismissed them, and the asking calls say so. */
  dispose(): void {
    const unanswered = "toolbelt stopped before anyone answered; run the call again once toolbelt is running."
    for (const { request } of [...this.#pending.values()]) this.reject({ requestID: request.id, unanswered })
  }

  async #answerWith(
    answer: AnswerQuestions,
    request: QuestionRequest,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    let reply: Awaited<ReturnType<AnswerQuestions>>
    try {
      reply = await answer(request, signal ? { signal } : {})
    } catch (error) {
      if (!this.#pending.has(request.id)) return
      reply = { unanswered: `the question could not be shown: ${(error as Error).message}` }
    }
    if (!this.#pending.has(request.id)) return
    if (reply === "dismiss") this.reject({ requestID: request.id })
    else if ("unanswered" in reply) this.reject({ requestID: request.id, unanswered: reply.unanswered })
    else this.reply({ requestID: request.id, answers: reply })
  }

  /** A question another instance of the fleet put, pending there; `QuestionNotFoundError` otherwise. */
  #elsewhere(requestID: string): QuestionRequest {
    const request = this.#fleet?.list().find((candidate) => candidate.id === requestID)
    if (!request) throw new QuestionNotFoundError(requestID)
    return request
  }

  #publishRejected(request: QuestionRequest): void {
    this.#options.publish?.("question.rejected", { sessionID: request.sessionID, requestID: request.id })
  }
}

/** The answers, one per question (missing ones empty), checked against what each question allows. */
function fitAnswers(request: QuestionRequest, answers: Answers): Answers {
  if (!Array.isArray(answers)) throw new QuestionAnswerError(request.id, "answers must be an array")
  if (answers.length > request.questions.length)
    throw new QuestionAnswerError(
      request.id,
      `${answers.length} answers for ${request.questions.length} question(s)`,
    )
  return request.questions.map((question, index) => {
    const labels = answers[index] ?? []
    if (!Array.isArray(labels) || labels.some((label) => typeof label !== "string"))
      throw new QuestionAnswerError(request.id, `answer ${index + 1} must be an array of strings`)
    if (labels.length > 1 && question.multiple !== true)
      throw new QuestionAnswerError(
        request.id,
        `question ${index + 1} takes one answer, got ${labels.length}`,
      )
    if (question.custom === false) {
      const offered = new Set(question.options.map((option) => option.label))
      const stranger = labels.find((label) => !offered.has(label))
      if (stranger !== undefined)
        throw new QuestionAnswerError(
          request.id,
          `question ${index + 1} takes only its options (${[...offered].join(", ")}), got ${JSON.stringify(stranger)}`,
        )
    }
    return [...labels]
  })
}
