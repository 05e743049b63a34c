import { createHash } from "node:crypto"
import { open, stat } from "node:fs/promises"
import { canonicalPath } from "./canonical-path.ts"
import { errorCode } from "./errors.ts"

/** What a file looked like when a session read (or wrote) it. */
export interface FileStamp {
  /** SHA-256 (hex) of the file's bytes, as `hashContent` and `hashFile` compute it. */
  readonly hash: string
  /** The file's `mtimeMs`; informative only: freshness is decided by the hash. */
  readonly mtime: number
  readonly size: number
}

export interface LedgerEntry extends FileStamp {
  /** When the stamp was recorded, epoch ms. */
  readonly time: number
}

/**
 * The contract the file tools use for read-before-write: per session, the stamp of each file as the
 * session last saw it. Paths are canonical (`canonicalPath`); `recordStamp` and `checkFresh` take care of
 * that. Implementations may be synchronous (memory) or not (a database); callers always await.
 */
export interface ReadLedger {
  record(sessionID: string, path: string, stamp: FileStamp): unknown
  get(sessionID: string, path: string): LedgerEntry | undefined | Promise<LedgerEntry | undefined>
  forget(sessionID: string, path: string): unknown
}

/** A ReadLedger in memory, for tests, the library without a store, and one-shot CLI calls. */
export class MemoryReadLedger implements ReadLedger {
  readonly #sessions = new Map<string, Map<string, LedgerEntry>>()

  record(sessionID: string, path: string, stamp: FileStamp, now = Date.now()): LedgerEntry {
    let files = this.#sessions.get(sessionID)
    if (!files) {
      files = new Map()
      this.#sessions.set(sessionID, files)
    }
    const entry: LedgerEntry = { hash: stamp.hash, mtime: stamp.mtime, size: stamp.size, time: now }
    files.set(path, entry)
    return entry
  }

  get(sessionID: string, path: string): LedgerEntry | undefined {
    return this.#sessions.get(sessionID)?.get(path)
  }

  /** Drops the entry; false when there was none. */
  forget(sessionID: string, path: string): boolean {
    const files = this.#sessions.get(sessionID)
    const removed = files?.delete(path) ?? false
    if (files?.size === 0) this.#sessions.delete(sessionID)
    return removed
  }

  /** Drops everything recorded for the session. */
  clear(sessionID: string): void {
    this.#sessions.delete(sessionID)
  }
}

const HASH_CHUNK_BYTES = 1 << 20

/** SHA-256 (hex) of a file's bytes, streamed in 1 MiB chunks. Equals `hashContent` of the same bytes. */
export async function hashFile(path: string, options: { signal?: AbortSignal } = {}): Promise<string> {
  const handle = await open(path, "r")
  try {
    const hash = createHash("sha256")
    const chunk = Buffer.allocUnsafeSlow(HASH_CHUNK_BYTES)
    for (let position = 0; ; ) {
      options.signal?.throwIfAborted()
      const { bytesRead } = await handle.read(chunk, 0, HASH_CHUNK_BYTES, position)
      if (bytesRead === 0) break
      hash.update(chunk.subarray(0, bytesRead))
      position += bytesRead
    }
    return hash.digest("hex")
  } finally {
    await handle.close()
  }
}

/** The stamp of the file as it is now: its hash, mtime and size. */
export async function fileStamp(path: string, options: { signal?: AbortSignal } = {}): Promise<FileStamp> {
  const before = await stat(path)
  const hash = await hashFile(path, options)
  return { hash, mtime: before.mtimeMs, size: before.size }
}

/**
 * Records that the session has seen the file: with `stamp` when the caller has it (the read tool hashes
 * during its own pass; a writer knows what it wrote), else the file's current stamp.
 */
export async function recordStamp(
  ledger: ReadLedger,
  sessionID: string,
  path: string,
  stamp?: FileStamp,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  const key = await canonicalPath(path)
  await ledger.record(sessionID, key, stamp ?? (await fileStamp(key, options)))
}

export type Freshness =
  | { ok: true }
  | { ok: false; reason: "not-read" | "changed"; message: string; entry?: LedgerEntry }

/**
 * Whether the session may overwrite `path`: it must have read (or written) the file, and the file's
 * content must still be what it saw.
 *
 * 1. Look up the session's stamp for the canonical path: none → `not-read`.
 * 2. The file is gone → ok (there is nothing to lose; the writer reports its own errors).
 * 3. A different size → `changed`, without hashing. Otherwise hash the file and compare: a touched but
 *    unchanged file is fresh (no mtime false alarms), a same-size rewrite is caught.
 * Messages are written for the model and name the next step.
 */
export async function checkFresh(
  ledger: ReadLedger,
  sessionID: string,
  path: string,
  options: { signal?: AbortSignal } = {},
): Promise<Freshness> {
  const key = await canonicalPath(path)
  const entry = await ledger.get(sessionID, key)
  if (!entry)
    return {
      ok: false,
      reason: "not-read",
      message: `You must read the file ${path} before overwriting it. Use the read tool first.`,
    }
  let current: { size: number; mtimeMs: number }
  try {
    current = await stat(key)
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return { ok: true }
    throw error
  }
  const changed = current.size !== entry.size || (await hashFile(key, options)) !== entry.hash
  if (!changed) return { ok: true }
  return {
    ok: false,
    reason: "changed",
    entry,
    message:
      `The file ${path} was modified since it was last read (by you, at ${new Date(entry.time).toISOString()}), ` +
      `by another tool call or by something else; it was last modified at ${new Date(current.mtimeMs).toISOString()}. ` +
      "Read it again before writing.",
  }
}
