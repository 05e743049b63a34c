// The fleet (issue 28): what an instance on a shared PostgreSQL store does for the others. It lists and
// answers the asks and questions every instance raised, applies the replies given elsewhere to its own,
// and sweeps away owners whose lease expired. On SQLite it does nothing: one machine, and start-up recovery.
// `promptEnd` tells a prompt showing an ask or question (terminal, MCP form) that it ended elsewhere.

import { ASK_REPLY_CHANNEL, AskReplies, PendingQuestions } from "../platform/store/ask-replies.ts"
import { isPostgres, type Listening } from "../platform/store/postgres/database.ts"
import type { Store } from "../platform/store/store.ts"
import type { Logger } from "../platform/util/log.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import type { PermissionEngine } from "../runtime/permission/engine.ts"
import { PermissionNotFoundError } from "../runtime/permission/errors.ts"
import type { PermissionReply, PermissionRequest } from "../runtime/permission/request.ts"
import { QuestionNotFoundError } from "../runtime/question/errors.ts"
import type { AnswerQuestions, QuestionRequest } from "../runtime/question/question.ts"
import type { QuestionService, SharedAnswer } from "../runtime/question/service.ts"

/** How often each instance looks for owners whose lease expired, ms. */
export const SWEEP_MS = 5_000

/** How often replies meant for this instance are looked for, should a notification have been missed, ms. */
export const REPLY_POLL_MS = 1_000

/**
 * How a permission ask or a question ended while a prompt showed it (a terminal prompt, an MCP form):
 * the reason of `promptEnd`'s signal, so the prompt can close and say who answered.
 */
export interface PromptEnd {
  readonly kind: "permission" | "question"
  /** A permission's reply (`once`, `always`, `reject`), the answers given, or `dismissed`. */
  readonly outcome: string
  /** The reply was given on another instance of the fleet (and applied here). */
  readonly elsewhere: boolean
}

export function isPromptEnd(reason: unknown): reason is PromptEnd {
  return typeof reason === "object" && reason !== null && "outcome" in reason && "elsewhere" in reason
}

/**
 * The requests whose reply this process applied for another instance, until a prompt showing them
 * reads it (`promptEnd`): the bus delivers `permission.replied` after the reply, so the mark must wait.
 * Bounded: a mark nobody reads is dropped with the oldest.
 */
const repliedElsewhere = new Set<string>()
const MARKS = 1_000

function markElsewhere(requestID: string): void {
  repliedElsewhere.add(requestID)
  if (repliedElsewhere.size > MARKS) repliedElsewhere.delete(repliedElsewhere.values().next().value!)
}

/**
 * A signal that aborts, with a `PromptEnd` as its reason, when the ask or question `requestID` ends
 * other than by the prompt's own answer: answered on another instance or through another surface,
 * withdrawn (its call aborted, the fleet's sweep), or ended with another ask of its session. A prompt
 * showing it closes then. Call `stop()` as soon as the prompt has its own answer, before applying it.
 */
export function promptEnd(
  bus: Bus,
  kind: "permission" | "question",
  requestID: string,
): { readonly signal: AbortSignal; stop(): void } {
  const ended = new AbortController()
  const end = (outcome: string) => {
    const elsewhere = repliedElsewhere.delete(requestID)
    ended.abort({ kind, outcome, elsewhere } satisfies PromptEnd)
  }
  const offs =
    kind === "permission"
      ? [
          bus.subscribe("permission.replied", ({ properties }) => {
            if (properties.requestID !== requestID) return
            end(String(properties.reply))
          }),
        ]
      : [
          bus.subscribe("question.replied", ({ properties }) => {
            if (properties.requestID !== requestID) return
            end(properties.answers.map((labels) => labels.join(", ") || "(no answer)").join("; "))
          }),
          bus.subscribe("question.rejected", ({ properties }) => {
            if (properties.requestID === requestID) end("dismissed")
          }),
        ]
  return {
    signal: ended.signal,
    stop: () => {
      for (const off of offs) off()
    },
  }
}

/** `answer`, whose prompt also closes when its questions end some other way (`promptEnd`). */
export function closingWhenEnded(bus: Bus, answer: AnswerQuestions): AnswerQuestions {
  return async (request, options) => {
    const end = promptEnd(bus, "question", request.id)
    try {
      const signal = options.signal ? AbortSignal.any([options.signal, end.signal]) : end.signal
      return await answer(request, { signal })
    } finally {
      end.stop()
    }
  }
}

export interface Fleet {
  /** Stops sweeping, listening and polling; the asks of other instances are no longer listed here. */
  stop(): Promise<void>
}

/**
 * Joins the fleet of instances sharing `store` (PostgreSQL only).
 * 1. Asks: the engine lists every pending ask of the store (`pending_ask`), and a reply to an ask another
 *    instance raised is stored for it (`AskReplies`, NOTIFYed on commit).
 *    Questions the same: this instance's pending ones are kept in `pending_question` while they wait.
 * 2. Replies given elsewhere for this instance's asks and questions are applied as if given here, when their
 *    notification arrives, when listening starts again after a lost connection (notifications meanwhile
 *    were missed), and every `REPLY_POLL_MS` in any case.
 * 3. Every `SWEEP_MS`, owners whose lease expired are swept (`journal.sweep()`): their open calls
 *    recorded interrupted (each published as `message.part.updated`), their pending asks and questions
 *    withdrawn (published as `permission.replied` with `reject`, and `question.rejected`).
 *    Every instance sweeps, once its own lease has been renewed on time for a whole lease (not right
 *    after a database restart, when every heartbeat is old); one wins each owner. (The lease itself
 *    is renewed by the store: owners.ts.)
 */
export function joinFleet({
  store,
  permission,
  questions,
  bus,
  log,
}: {
  store: Store
  permission: PermissionEngine
  questions: QuestionService
  bus: Bus
  log: Logger
}): Fleet {
  const db = store.db
  if (!isPostgres(db)) return { stop: async () => {} }
  const owner = store.journal.owner
  const replies = new AskReplies(db)
  permission.share({
    list: (sessionID) => store.journal.pendingAsks(sessionID) as PermissionRequest[],
    // An ask of this instance that is no longer pending here has ended: there is nobody to hand it to.
    send: (reply) => replies.put(reply, owner) === "stored",
  })

  const pendingQuestions = new PendingQuestions(db)
  questions.share({
    list: (sessionID) => pendingQuestions.list(sessionID) as QuestionRequest[],
    send: (answer) => replies.put(answer, owner) === "stored",
  })
  // Kept while pending, so that the others list them (removed however they end). One subscriber, so a
  // question's end is never handled before its start.
  const unsubscribe = bus.subscribe("*", (event) => {
    if (event.type === "question.asked") pendingQuestions.add(event.properties, owner)
    else if (event.type === "question.replied" || event.type === "question.rejected")
      pendingQuestions.remove(event.properties.requestID)
  })

  /** A reply given elsewhere, applied here: a question's answers or dismissal, else a permission reply. */
  const applyOne = (reply: PermissionReply | SharedAnswer) => {
    // A prompt showing it here closes, saying it was answered on another instance.
    markElsewhere(reply.requestID)
    if ("answers" in reply) questions.reply(reply)
    else if ("dismissed" in reply) questions.reject(reply)
    else permission.reply(reply)
  }
  const apply = () => {
    let taken: (PermissionReply | SharedAnswer)[]
    try {
      taken = replies.take(owner) as (PermissionReply | SharedAnswer)[]
    } catch (error) {
      log.warn("could not read the replies given elsewhere; trying again", { error: String(error) })
      return
    }
    for (const reply of taken) {
      try {
        applyOne(reply)
      } catch (error) {
        // Ended meanwhile (answered here, aborted, withdrawn): the reply came too late.
        if (!(error instanceof PermissionNotFoundError || error instanceof QuestionNotFoundError)) {
          log.warn("a reply given elsewhere could not be applied", {
            requestID: reply.requestID,
            error: String(error),
          })
        }
      }
    }
  }
  const sweep = () => {
    try {
      // Not right after this instance was cut off from the database: the others need a lease to beat again.
      if (!store.journal.steady) return
      const swept = store.journal.sweep()
      for (const part of swept.interrupted) bus.publish("message.part.updated", { part })
      // Withdrawn: whoever shows them is told they are gone.
      for (const { id, sessionID } of swept.asks)
        bus.publish("permission.replied", { sessionID, requestID: id, reply: "reject" })
      for (const { id, sessionID } of swept.questions)
        bus.publish("question.rejected", { sessionID, requestID: id })
    } catch (error) {
      log.warn("the fleet sweep failed; trying again", { error: String(error) })
    }
  }

  const listening: Promise<Listening | undefined> = db
    .listen(ASK_REPLY_CHANNEL, (payload) => payload === owner && apply(), apply)
    .catch((error) => {
      log.warn("not listening for replies given elsewhere; polling only", { error: String(error) })
      return undefined
    })
  const poll = setInterval(apply, REPLY_POLL_MS)
  const sweeper = setInterval(sweep, SWEEP_MS)
  poll.unref()
  sweeper.unref()
  return {
    async stop() {
      clearInterval(poll)
      clearInterval(sweeper)
      permission.share(undefined)
      questions.share(undefined)
      unsubscribe()
      await (await listening)?.unlisten()
    },
  }
}
