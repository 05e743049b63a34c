import type { Database, Statement } from "./sqlite.ts"

/** The most bytes one `output_chunk` row holds: a 200 MB output is 200 rows, never one value. */
export const OUTPUT_CHUNK_BYTES = 1 << 20

/** The call a saved output belongs to, when known. */
export interface OutputOwner {
  readonly sessionID: string
  readonly callID: string
}

/** A saved output as its row describes it. */
export interface StoredOutput {
  /** The local file's name, `tool_<id>`. */
  readonly id: string
  readonly sessionID: string | null
  readonly callID: string | null
  /** Epoch ms. */
  readonly created: number
  readonly bytes: number
  readonly chunks: number
}

interface OutputRow {
  readonly id: string
  readonly session_id: string | null
  readonly call_id: string | null
  readonly created: number
  readonly bytes: number | null
  readonly chunks: number | null
}

/**
 * Full outputs of bounded results kept in the store, so every instance of a fleet on one PostgreSQL
 * store can hand out what any of them saved (issue 28; the writer is `runtime/output/store.ts`).
 *
 * An output is written as its row first (`begin`), then its chunks in order (`append`, each its own
 * statement, so a writer can yield between them and never holds one transaction over 200 MB), then
 * `finish` records its size: until then readers do not see it, and a writer that died midway leaves
 * only rows the sweep removes. Rows are named by the local file's name, the id the call's metadata
 * carries (`outputPath`'s last segment).
 */
export class StoredOutputs {
  readonly #db: Database
  readonly #begin: Statement
  readonly #append: Statement
  readonly #finish: Statement
  readonly #get: Statement
  readonly #chunk: Statement
  readonly #sweepChunks: Statement
  readonly #sweepRows: Statement
  readonly #discardChunks: Statement
  readonly #discardRow: Statement

  constructor(db: Database) {
    this.#db = db
    this.#begin = db.prepare(
      "INSERT INTO output (id, session_id, call_id, created) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
    )
    this.#append = db.prepare("INSERT INTO output_chunk (output_id, seq, data) VALUES (?, ?, ?)")
    this.#finish = db.prepare("UPDATE output SET bytes = ?, chunks = ? WHERE id = ?")
    this.#get = db.prepare("SELECT id, session_id, call_id, created, bytes, chunks FROM output WHERE id = ?")
    this.#chunk = db.prepare("SELECT data FROM output_chunk WHERE output_id = ? AND seq = ?")
    this.#sweepChunks = db.prepare(
      "DELETE FROM output_chunk WHERE output_id IN (SELECT id FROM output WHERE created < ?)",
    )
    this.#sweepRows = db.prepare("DELETE FROM output WHERE created < ?")
    this.#discardChunks = db.prepare("DELETE FROM output_chunk WHERE output_id = ?")
    this.#discardRow = db.prepare("DELETE FROM output WHERE id = ?")
  }

  /** Starts output `id`; false when it exists already (saved before: nothing to do). */
  begin(id: string, owner: OutputOwner | undefined, created = Date.now()): boolean {
    return this.#begin.run(id, owner?.sessionID ?? null, owner?.callID ?? null, created).changes === 1
  }

  /** Appends chunk `seq` (0, 1, …) of output `id`; at most `OUTPUT_CHUNK_BYTES`. */
  append(id: string, seq: number, data: Uint8Array): void {
    if (data.byteLength > OUTPUT_CHUNK_BYTES) {
      throw new RangeError(
        `An output chunk holds at most ${OUTPUT_CHUNK_BYTES} bytes, not ${data.byteLength}`,
      )
    }
    this.#append.run(id, seq, data)
  }

  /** Marks output `id` complete: `bytes` in `chunks` chunks. Readers see it from now on. */
  finish(id: string, bytes: number, chunks: number): void {
    this.#finish.run(bytes, chunks, id)
  }

  /** Removes output `id` and its chunks (a write that failed midway). */
  discard(id: string): void {
    this.#db.transaction(() => {
      this.#discardChunks.run(id)
      this.#discardRow.run(id)
    })
  }

  /** The complete output `id`, or undefined when there is none (or it is still being written). */
  get(id: string): StoredOutput | undefined {
    const row = this.#get.get<OutputRow>(id)
    if (!row || row.bytes === null || row.chunks === null) return undefined
    return {
      id: row.id,
      sessionID: row.session_id,
      callID: row.call_id,
      created: Number(row.created),
      bytes: Number(row.bytes),
      chunks: Number(row.chunks),
    }
  }

  /** Chunk `seq` of output `id`; undefined once the output was swept. */
  chunk(id: string, seq: number): Uint8Array | undefined {
    return this.#chunk.get<{ data: Uint8Array }>(id, seq)?.data
  }

  /** Removes every output created before `before` (epoch ms), with its chunks; returns how many. */
  sweep(before: number): number {
    return this.#db.transaction(() => {
      this.#sweepChunks.run(before)
      return this.#sweepRows.run(before).changes
    })
  }
}
