import { storedInput, storedString } from "./input-bounds.ts"
import { advance, type ToolPart } from "./part.ts"
import type { Database, Statement } from "./sqlite.ts"

const OPEN = "status IN ('pending', 'running')"

/** A stored part and the owner that last wrote it. */
export interface PartRecord {
  readonly part: ToolPart
  readonly owner: string | null
}

/**
 * The `part` table's statements, shared by `Parts` and the journal. Nothing here checks transitions:
 * callers read the stored part, check the move and write it in one transaction.
 */
export class PartRows {
  readonly #read: Statement
  readonly #insert: Statement
  readonly #update: Statement
  readonly #updateData: Statement
  readonly #list: Statement
  readonly #open: Statement
  readonly #openInSession: Statement

  constructor(db: Database) {
    this.#read = db.prepare("SELECT data, output, owner FROM part WHERE session_id = ? AND call_id = ?")
    this.#insert = db.prepare(
      `INSERT INTO part (id, session_id, message_id, call_id, tool, status, data, output, owner, time_created, time_updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    // Two updates: one that leaves `status` alone, so progress does not touch the part_open index.
    this.#update = db.prepare(
      "UPDATE part SET status = ?, data = ?, output = ?, owner = ?, time_updated = ? WHERE session_id = ? AND call_id = ?",
    )
    this.#updateData = db.prepare(
      "UPDATE part SET data = ?, output = ?, owner = ?, time_updated = ? WHERE session_id = ? AND call_id = ?",
    )
    this.#list = db.prepare("SELECT data, output FROM part WHERE session_id = ? ORDER BY seq")
    this.#open = db.prepare(`SELECT data, output, owner FROM part WHERE ${OPEN} ORDER BY seq`)
    this.#openInSession = db.prepare(
      `SELECT data, output, owner FROM part WHERE ${OPEN} AND session_id = ? ORDER BY seq`,
    )
  }

  read(sessionID: string, callID: string): PartRecord | undefined {
    const row = this.#read.get<PartRow>(sessionID, callID)
    return row && { part: decode(row), owner: row.owner ?? null }
  }

  /**
   * Stores `part`. `stored` is the part as read in this transaction (undefined: a new row); the
   * identity columns keep their stored values, as `advance()` keeps them in the part.
   */
  write(part: ToolPart, stored: ToolPart | undefined, owner: string, now: number): void {
    const { data, output } = encode(part)
    if (!stored) {
      this.#insert.run(
        part.id,
        part.sessionID,
        part.messageID,
        part.callID,
        part.tool,
        part.state.status,
        data,
        output,
        owner,
        now,
        now,
      )
    } else if (stored.state.status === part.state.status) {
      this.#updateData.run(data, output, owner, now, part.sessionID, part.callID)
    } else {
      this.#update.run(part.state.status, data, output, owner, now, part.sessionID, part.callID)
    }
  }

  list(sessionID: string): ToolPart[] {
    return this.#list.all<PartRow>(sessionID).map(decode)
  }

  open(sessionID?: string): PartRecord[] {
    const rows =
      sessionID === undefined ? this.#open.all<PartRow>() : this.#openInSession.all<PartRow>(sessionID)
    return rows.map((row) => ({ part: decode(row), owner: row.owner ?? null }))
  }
}

interface PartRow {
  data: string
  output: string | null
  owner?: string | null
}

/**
 * A part as stored: its JSON, and a completed part's output apart (kept out of the JSON, where escaping
 * a large output would cost more than the rest of the write). The JSON keeps `output: ""` in its place.
 * An output with a NUL character stays in the JSON (a column NULL), as rows from before the column did.
 */
function encode(whole: ToolPart): { data: string; output: string | null } {
  const part = bounded(whole)
  const state = part.state
  // PostgreSQL's TEXT cannot hold NUL: such an output stays in the JSON, which escapes it.
  if (state.status !== "completed" || state.output.includes("\u0000")) {
    return { data: JSON.stringify(part), output: null }
  }
  return { data: JSON.stringify({ ...part, state: { ...state, output: "" } }), output: state.output }
}

/**
 * The part with its input as the journal keeps it (`storedInput`: large values by digest), whoever
 * wrote it; settlement already hands over bounded parts, so this is usually the same object.
 */
function bounded(part: ToolPart): ToolPart {
  const state = part.state
  const input = storedInput(state.input)
  const raw = state.status === "pending" ? storedString(state.raw) : undefined
  if (input === state.input && (state.status !== "pending" || raw === state.raw)) return part
  return { ...part, state: { ...state, input, ...(raw === undefined ? {} : { raw }) } } as ToolPart
}

function decode(row: PartRow): ToolPart {
  const part = JSON.parse(row.data) as ToolPart
  // NULL: a row from before the column, or a part that has no output (yet).
  if (row.output === null || part.state.status !== "completed") return part
  return { ...part, state: { ...part.state, output: row.output } }
}

/** Tool parts as stored: one row per (session, call), holding the whole part. */
export class Parts {
  readonly #db: Database
  readonly #rows: PartRows
  readonly #owner: string
  readonly #flush: () => void

  /** `flush` commits queued journal steps first, so reads and writes here come after them. */
  constructor(db: Database, rows: PartRows, owner: string, flush: () => void = () => {}) {
    this.#db = db
    this.#rows = rows
    this.#owner = owner
    this.#flush = flush
  }

  /**
   * Stores a part without journalling it (imports, tests; the runtime records calls through the
   * journal). A part that exists only moves forward (`advance()`): its stored identity is kept and a
   * backward or post-final move throws `IllegalTransitionError`. Returns the part as stored.
   */
  upsert(part: ToolPart, now = Date.now()): ToolPart {
    this.#flush()
    return this.#db.transaction(() => {
      const stored = this.#rows.read(part.sessionID, part.callID)?.part
      const next = stored ? advance(stored, part.state) : part
      this.#rows.write(next, stored, this.#owner, now)
      return next
    })
  }

  get(sessionID: string, callID: string): ToolPart | undefined {
    this.#flush()
    return this.#rows.read(sessionID, callID)?.part
  }

  /** A session's parts, in the order they were first stored. */
  list(sessionID: string): ToolPart[] {
    this.#flush()
    return this.#rows.list(sessionID)
  }

  /** Parts still pending or running (in one session, or everywhere). */
  open(sessionID?: string): ToolPart[] {
    this.#flush()
    return this.#rows.open(sessionID).map((record) => record.part)
  }
}
