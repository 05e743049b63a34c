import { sha256Base64url } from "../util/sha256.ts"
import { TextCache } from "../util/text-cache.ts"
import { storedInput, storedString } from "./input-bounds.ts"
import { advance, type ToolPart } from "./part.ts"
import type { Database, Statement } from "./sqlite.ts"

const OPEN = "p.status IN ('pending', 'running')"

/**
 * Outputs this long or longer are stored once by content (`part_output`, keyed by SHA-256) and named
 * by the parts that returned them; shorter ones stay in the part's row, where a name would save little.
 */
export const SHARED_OUTPUT_CHARS = 2048

/** Characters of recent outputs whose digests are kept, so the same output again is not hashed again. */
const RECENT_DIGEST_CHARS = 4 * 1024 * 1024

const recentDigests = new TextCache<string>({ maxChars: RECENT_DIGEST_CHARS })

/** The SHA-256 of a long output; an output seen lately (a file read again) is looked up, not hashed. */
function digestOf(output: string): string {
  const known = recentDigests.get(output)
  if (known !== undefined) return known
  const digest = sha256Base64url(output)
  recentDigests.set(output, digest)
  return digest
}

/** A part's row with its output, wherever it is kept. */
const SELECT = `SELECT p.data, COALESCE(p.output, o.text) AS output, p.owner FROM part p
  LEFT JOIN part_output o ON o.digest = p.output_digest`

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
  readonly #share: Statement
  readonly #shared: Statement | undefined

  constructor(db: Database) {
    this.#read = db.prepare(`${SELECT} WHERE p.session_id = ? AND p.call_id = ?`)
    this.#insert = db.prepare(
      `INSERT INTO part (id, session_id, message_id, call_id, tool, status, data, output, output_digest, owner,
         time_created, time_updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    // Two updates: one that leaves `status` alone, so progress does not touch the part_open index.
    this.#update = db.prepare(
      `UPDATE part SET status = ?, data = ?, output = ?, output_digest = ?, owner = ?, time_updated = ?
       WHERE session_id = ? AND call_id = ?`,
    )
    this.#updateData = db.prepare(
      `UPDATE part SET data = ?, output = ?, output_digest = ?, owner = ?, time_updated = ?
       WHERE session_id = ? AND call_id = ?`,
    )
    this.#list = db.prepare(`${SELECT} WHERE p.session_id = ? ORDER BY p.seq`)
    this.#open = db.prepare(`${SELECT} WHERE ${OPEN} ORDER BY p.seq`)
    this.#openInSession = db.prepare(`${SELECT} WHERE ${OPEN} AND p.session_id = ? ORDER BY p.seq`)
    this.#share = db.prepare(
      "INSERT INTO part_output (digest, text) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING",
    )
    this.#shared =
      db.engine === "sqlite" ? db.prepare("SELECT 1 AS found FROM part_output WHERE digest = ?") : undefined
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
    const { data, output, digest } = encode(part)
    if (digest !== null && !this.#known(digest)) this.#share.run(digest, output)
    const inline = digest === null ? output : null
    if (!stored) {
      this.#insert.run(
        part.id,
        part.sessionID,
        part.messageID,
        part.callID,
        part.tool,
        part.state.status,
        data,
        inline,
        digest,
        owner,
        now,
        now,
      )
    } else if (stored.state.status === part.state.status) {
      this.#updateData.run(data, inline, digest, owner, now, part.sessionID, part.callID)
    } else {
      this.#update.run(part.state.status, data, inline, digest, owner, now, part.sessionID, part.callID)
    }
  }

  /**
   * Whether `part_output` holds `digest` already. On SQLite it is looked up first: handing SQLite a
   * 40 KB text to find it there already (an agent reading the same file again) cost its UTF-8 copy and
   * compare on every call. Both run in the caller's transaction, which holds the write lock, so no other
   * process removes the row between the look and the part naming it. On PostgreSQL the insert goes
   * unread with the batch's other statements (postgres/held.ts), where a look would cost a round trip.
   */
  #known(digest: string): boolean {
    return this.#shared !== undefined && this.#shared.get(digest) !== undefined
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
 * A long output is named by its `digest` (its text goes to `part_output` once). An output with a NUL
 * character stays in the JSON (columns NULL), as rows from before the column did.
 */
function encode(whole: ToolPart): { data: string; output: string | null; digest: string | null } {
  const part = bounded(whole)
  const state = part.state
  // PostgreSQL's TEXT cannot hold NUL: such an output stays in the JSON, which escapes it.
  if (state.status !== "completed" || state.output.includes("\u0000")) {
    return { data: JSON.stringify(part), output: null, digest: null }
  }
  const output = state.output
  return {
    data: JSON.stringify({ ...part, state: { ...state, output: "" } }),
    output,
    digest: output.length >= SHARED_OUTPUT_CHARS ? digestOf(output) : null,
  }
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
  readonly #owner: () => string
  readonly #flush: () => void

  /** `flush` commits queued journal steps first, so reads and writes here come after them. */
  constructor(db: Database, rows: PartRows, owner: () => string, flush: () => void = () => {}) {
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
      this.#rows.write(next, stored, this.#owner(), now)
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
