import { stat } from "node:fs/promises"
import { createSha256 } from "../util/sha256.ts"
import { canonicalPath } from "./canonical-path.ts"
import { errorCode } from "./errors.ts"
import { openRegular } from "./open-regular.ts"
import { hashContent } from "./text.ts"

/**
 * Files up to this size are known to the ledger by the SHA-256 of their bytes. Larger ones (logs, dumps,
 * generated data) by their identity and change time (`identityFingerprint`): hashing 1 GiB costs ~0.6 s
 * on every first read, while the stat fingerprint catches every write (a write always moves the ctime).
 */
export const LEDGER_HASH_MAX_BYTES = 16 * 1024 * 1024

/** The prefix of a fingerprint that is not a content hash. */
const IDENTITY = "stat:"

/** What a file looked like when a session read (or wrote) it. */
export interface FileStamp {
  /**
   * SHA-256 (hex) of the file's bytes, as `hashContent` and `hashFile` compute it; for files over
   * `LEDGER_HASH_MAX_BYTES` read by the read tool, a `stat:` identity fingerprint instead.
   */
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
  const handle = await openRegular(path)
  try {
    const hash = createSha256()
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

/** The file version facts an identity fingerprint is made of (a `Stats` has them). */
export interface FileVersion {
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
}

/**
 * A fingerprint of one version of a large file: device, inode, size, mtime and ctime. Any write moves the
 * ctime (user space cannot set it back) and a replacing rename changes the inode.
 */
export function identityFingerprint(version: FileVersion): string {
  return `${IDENTITY}${version.dev}:${version.ino}:${version.size}:${version.mtimeMs}:${version.ctimeMs}`
}

/** The stamp of the file as it is now: its hash (or identity fingerprint, when large), mtime and size. */
export async function fileStamp(path: string, options: { signal?: AbortSignal } = {}): Promise<FileStamp> {
  const before = await stat(path)
  const hash =
    before.size > LEDGER_HASH_MAX_BYTES ? identityFingerprint(before) : await hashFile(path, options)
  return { hash, mtime: before.mtimeMs, size: before.size }
}

/**
 * Whether the file at `path` is still the version `stamp` recorded: same identity (for a fingerprint), or
 * same size and bytes (for a hash; `data` are the file's bytes when the caller holds them already).
 */
export async function isUnchanged(
  stamp: FileStamp,
  path: string,
  options: { data?: Uint8Array; stats?: FileVersion; signal?: AbortSignal } = {},
): Promise<boolean> {
  if (options.data && !stamp.hash.startsWith(IDENTITY))
    return options.data.byteLength === stamp.size && hashContent(options.data) === stamp.hash
  // The caller's stat of the file, when it has just taken one.
  const current = options.stats ?? (await stat(path))
  if (stamp.hash.startsWith(IDENTITY)) return identityFingerprint(current) === stamp.hash
  return current.size === stamp.size && (await hashFile(path, options)) === stamp.hash
}

/**
 * Records that the session has seen the file: with `stamp` when the caller has it (the read tool hashes
 * during its own pass; a writer knows what it wrote), else the file's current stamp. `canonical` is the
 * path's canonical form when the caller has just resolved it.
 */
export async function recordStamp(
  ledger: ReadLedger,
  sessionID: string,
  path: string,
  stamp?: FileStamp,
  options: { signal?: AbortSignal; canonical?: string } = {},
): Promise<void> {
  // `canonical`: the caller resolved the path a moment ago (the project check): no second realpath.
  const key = options.canonical ?? (await canonicalPath(path))
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
 *    unchanged file is fresh (no mtime false alarms), a same-size rewrite is caught. A large file recorded
 *    by its identity fingerprint is compared by identity (any write, even a touch, counts as a change).
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
  let current: FileVersion
  try {
    current = await stat(key)
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return { ok: true }
    throw error
  }
  if (await isUnchanged(entry, key, { ...options, stats: current })) return { ok: true }
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
