// Writes several files as one change: each write is atomic, and when one fails the files already
// written are put back as they were, so a multi-file edit lands whole or not at all. A recovery record
// written before the first rename extends that to a crash: the next start rolls the change back.

import { lstat, readFile, rm, rmdir, stat } from "node:fs/promises"
import { dirname } from "node:path"
import { writeFileAtomic } from "../../../platform/fs/atomic-write.ts"
import { errorCode } from "../../../platform/fs/errors.ts"
import type { ChangeEntry, OpenRecord, RecoveryLog } from "../../../platform/fs/recovery-log.ts"

/** One step: write `content` to `path`, or remove `path` when `content` is null. */
export interface FileOperation {
  readonly path: string
  readonly content: string | Uint8Array | null
}

export type CommitResult =
  | { readonly ok: true }
  | {
      readonly ok: false
      /** The operation that failed, and why. */
      readonly failed: { readonly path: string; readonly error: unknown }
      /** Paths put back as they were (rewritten, or removed again when they did not exist). */
      readonly restored: readonly string[]
      /** Paths that could not be put back, and why: the caller must say so loudly. */
      readonly unrestored: readonly { readonly path: string; readonly error: unknown }[]
    }

/** A path as it was before the transaction first touched it. */
type Original = ChangeEntry["original"]

export interface CommitOptions {
  /**
   * Where a change that spans several paths writes its recovery record before its first rename, so
   * that a crash midway is rolled back at the next start. Without it, only a failure the process
   * lives through is undone.
   */
  readonly recovery?: RecoveryLog
  /** What makes the change, for the recovery report (e.g. `apply_patch`). */
  readonly label?: string
}

/**
 * Applies `operations` in order; the caller holds the locks of every path.
 *
 * 1. Before any path is touched, remember each: its bytes and mode, or that it did not exist (and
 *    which of its parent directories are missing, since the write creates them).
 * 2. When the change spans several paths and `recovery` is given, write the recovery record (every
 *    original, and the hash of everything the change will write) and wait until it is durable. A
 *    record that cannot be written fails the change before any file changed.
 * 3. Run the operations: `writeFileAtomic` (temp file, fsync, rename) or `rm`.
 * 4. If one fails, undo the paths already touched, newest first: rewrite the remembered bytes (with
 *    their mode), or remove a file that did not exist and the directories created for it. The path
 *    whose operation failed is undone too (an atomic write leaves it untouched, so that is a no-op).
 * 5. Remove the record (durably): the change is complete, or undone. If even that fails, the change is
 *    undone, so that a later start cannot roll back a change reported as done.
 * Returns what failed and what could or could not be restored; it never throws for a failed write.
 */
export async function commit(
  operations: readonly FileOperation[],
  options: CommitOptions = {},
): Promise<CommitResult> {
  const originals = new Map<string, Original>()
  const writes = new Map<string, FileOperation["content"][]>()
  let record: OpenRecord | undefined
  try {
    for (const { path, content } of operations) {
      if (!originals.has(path)) originals.set(path, await remember(path))
      writes.set(path, [...(writes.get(path) ?? []), content])
    }
    if (options.recovery && originals.size > 1) {
      const entries = [...originals].map(([path, original]) => ({
        path,
        original,
        writes: writes.get(path)!,
      }))
      record = await options.recovery.begin(entries, options.label ?? "multi-file")
    }
  } catch (error) {
    return { ok: false, failed: { path: operations[0]?.path ?? "", error }, restored: [], unrestored: [] }
  }
  const touched: string[] = []
  for (const operation of operations) {
    try {
      if (!touched.includes(operation.path)) touched.push(operation.path)
      if (operation.content === null) await rm(operation.path)
      else await writeFileAtomic(operation.path, operation.content)
    } catch (error) {
      return undo(touched, originals, { path: operation.path, error }, record)
    }
  }
  try {
    await record?.done()
  } catch (error) {
    return undo(touched, originals, { path: options.recovery?.dir ?? "", error }, record)
  }
  return { ok: true }
}

/** Step 4: puts back every touched path, newest first, then removes the record. */
async function undo(
  touched: readonly string[],
  originals: ReadonlyMap<string, Original>,
  failed: { path: string; error: unknown },
  record: OpenRecord | undefined,
): Promise<CommitResult> {
  const restored: string[] = []
  const unrestored: { path: string; error: unknown }[] = []
  for (const path of [...touched].reverse()) {
    try {
      if (await restore(path, originals.get(path)!)) restored.push(path)
    } catch (restoreError) {
      unrestored.push({ path, error: restoreError })
    }
  }
  // What could not be restored is reported now; a start-up rollback later could clobber newer edits.
  await record?.done().catch(() => {})
  return { ok: false, failed, restored, unrestored }
}

async function remember(path: string): Promise<Original> {
  try {
    const stats = await stat(path)
    if (stats.isFile()) return { exists: true, data: await readFile(path), mode: stats.mode & 0o7777 }
  } catch (error) {
    const code = errorCode(error)
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error
  }
  return { exists: false, createdDirs: await missingParents(path) }
}

/** The parent directories of `path` that do not exist yet, deepest first. */
async function missingParents(path: string): Promise<string[]> {
  const missing: string[] = []
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      await lstat(dir)
      break
    } catch (error) {
      if (errorCode(error) !== "ENOENT") break
      missing.push(dir)
    }
  }
  return missing
}

/** Puts `path` back as it was; true when something had to be done. */
async function restore(path: string, original: Original): Promise<boolean> {
  if (original.exists) {
    const now = await readFile(path).catch(() => undefined)
    if (now?.equals(original.data)) return false
    await writeFileAtomic(path, original.data, { mode: original.mode })
    return true
  }
  let changed = false
  try {
    await lstat(path)
    await rm(path)
    changed = true
  } catch (error) {
    const code = errorCode(error)
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error
  }
  for (const dir of original.createdDirs) {
    try {
      await rmdir(dir)
      changed = true
    } catch {
      // Not empty (something else put a file there) or already gone: leave it.
    }
  }
  return changed
}
