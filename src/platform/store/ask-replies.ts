import type { Database, Statement } from "./sqlite.ts"

/**
 * The channel a stored reply is announced on (PostgreSQL NOTIFY, on commit); the payload is the owner
 * that raised the ask, so every other instance ignores it without a query.
 */
export const ASK_REPLY_CHANNEL = "toolbelt_ask_reply"

/**
 * A reply as given (the permission engine's `PermissionReply`, or a question's answers or dismissal): kept
 * as JSON, applied as it came.
 */
export interface StoredReply {
  readonly requestID: string
}

/** What became of a reply handed on: stored for the raising owner, no such pending ask, or replied already. */
export type PutOutcome = "stored" | "unknown" | "replied"

/**
 * Replies to asks that another instance of the fleet raised (issue 28). An ask waits in the process that
 * raised it (its call's promise is there), and its row in `pending_ask` (a question's in
 * `pending_question`) names that owner. A reply given
 * anywhere is stored here, keyed by the request, and NOTIFYed on commit; the raising owner takes its
 * replies (on the notification, or its poll when a notification was missed) and applies them as if
 * given locally. The first reply stored for a request wins; later ones are refused.
 */
export class AskReplies {
  readonly #db: Database
  readonly #ownerOf: Statement
  readonly #insert: Statement
  readonly #take: Statement
  readonly #notify: Statement | undefined

  constructor(db: Database) {
    this.#db = db
    this.#ownerOf = db.prepare(
      "SELECT owner FROM pending_ask WHERE id = ? UNION ALL SELECT owner FROM pending_question WHERE id = ?",
    )
    this.#insert = db.prepare(
      "INSERT INTO ask_reply (request_id, owner, data, time) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
    )
    this.#take = db.prepare("DELETE FROM ask_reply WHERE owner = ? RETURNING data")
    this.#notify = db.engine === "postgres" ? db.prepare("SELECT pg_notify(?, ?)") : undefined
  }

  /**
   * Stores `reply` for the owner of the pending ask it answers, and wakes that owner on commit. `from`
   * is the replying owner: its own asks are its to apply, so one of them is "unknown" here.
   */
  put(reply: StoredReply, from: string, now = Date.now()): PutOutcome {
    return this.#db.transaction(() => {
      const owner = this.#ownerOf.get<{ owner: string | null }>(reply.requestID, reply.requestID)?.owner
      if (!owner || owner === from) return "unknown"
      const stored = this.#insert.run(reply.requestID, owner, JSON.stringify(reply), now).changes === 1
      if (!stored) return "replied"
      this.#notify?.get(ASK_REPLY_CHANNEL, owner)
      return "stored"
    })
  }

  /** The replies waiting for `owner`, oldest request first; taking them removes them. */
  take(owner: string): StoredReply[] {
    return this.#take
      .all<{ data: string }>(owner)
      .map((row) => JSON.parse(row.data) as StoredReply)
      .sort((a, b) => (a.requestID < b.requestID ? -1 : a.requestID > b.requestID ? 1 : 0))
  }
}

/** A question put to a person, as the fleet lists it: only its id and session are read here. */
export interface StoredQuestion {
  readonly id: string
  readonly sessionID: string
}

/**
 * The questions waiting for answers in every instance of the fleet, each stamped with the owner whose
 * call waits for it (that owner applies the answers: `AskReplies`). Rows are added when a question is
 * asked and removed when it ends; the sweep removes those of an owner found dead.
 */
export class PendingQuestions {
  readonly #insert: Statement
  readonly #delete: Statement
  readonly #all: Statement
  readonly #inSession: Statement

  constructor(db: Database) {
    this.#insert = db.prepare(
      "INSERT INTO pending_question (id, session_id, data, owner, time) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    )
    this.#delete = db.prepare("DELETE FROM pending_question WHERE id = ?")
    this.#all = db.prepare("SELECT data FROM pending_question ORDER BY id")
    this.#inSession = db.prepare("SELECT data FROM pending_question WHERE session_id = ? ORDER BY id")
  }

  add(question: StoredQuestion, owner: string, now = Date.now()): void {
    this.#insert.run(question.id, question.sessionID, JSON.stringify(question), owner, now)
  }

  remove(id: string): void {
    this.#delete.run(id)
  }

  /** The pending questions of every owner (of one session when given), oldest first. */
  list(sessionID?: string): StoredQuestion[] {
    const rows =
      sessionID === undefined
        ? this.#all.all<{ data: string }>()
        : this.#inSession.all<{ data: string }>(sessionID)
    return rows.map((row) => JSON.parse(row.data) as StoredQuestion)
  }
}
