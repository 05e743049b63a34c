import { ascending } from "../util/id.ts"
import { fromRow } from "./rows.ts"
import type { Database, Statement } from "./sqlite.ts"

/** A message of a session as stored: its role and its JSON body, which the agent loop owns. */
export interface MessageRecord {
  readonly id: string
  readonly sessionID: string
  readonly role: string
  readonly data: unknown
  /** Epoch ms. */
  readonly time: number
}

interface MessageRow {
  id: string
  session_id: string
  role: string
  data: string
  time: number
}

export class Messages {
  readonly #upsert: Statement
  readonly #get: Statement
  readonly #list: Statement

  constructor(db: Database) {
    this.#upsert = db.prepare(
      `INSERT INTO message (id, session_id, role, data, time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET role = excluded.role, data = excluded.data`,
    )
    this.#get = db.prepare("SELECT * FROM message WHERE id = ?")
    this.#list = db.prepare("SELECT * FROM message WHERE session_id = ? ORDER BY time, id")
  }

  /**
   * Stores a message (a new one gets a `msg_` id); storing an existing id replaces its role and body.
   * The session must exist (foreign key).
   */
  put(
    message: { id?: string; sessionID: string; role: string; data: unknown },
    now = Date.now(),
  ): MessageRecord {
    const record: MessageRecord = {
      id: message.id ?? ascending("msg", now),
      sessionID: message.sessionID,
      role: message.role,
      data: message.data,
      time: now,
    }
    this.#upsert.run(record.id, record.sessionID, record.role, JSON.stringify(record.data ?? null), now)
    return this.get(record.id)!
  }

  get(id: string): MessageRecord | undefined {
    const row = this.#get.get<MessageRow>(id)
    return row && toMessage(row)
  }

  /** A session's messages, oldest first. */
  list(sessionID: string): MessageRecord[] {
    return this.#list.all<MessageRow>(sessionID).map(toMessage)
  }
}

function toMessage(row: MessageRow): MessageRecord {
  return { ...fromRow(row), data: JSON.parse(row.data) }
}
