// Writes several files as one change: each write is atomic, and when one fails the files already
// written are put back as they were, so a multi-file edit lands whole or not at all.

import { lstat, readFile, rm, rmdir, stat } from "node:fs/promises"
import { dirname } from "node:path"
import { writeFileAtomic } from "../../fs/atomic-write.ts"
import { errorCode } from "../../fs/errors.ts"

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
type Original =
  | { readonly exists: false; readonly createdDirs: readonly string[] }
  | { readonly exists: true; readonly data: Buffer; readonly mode: number }

/**
 * Applies `operations` in order; the caller holds the locks of every path.
 *
 * 1. Before a path is first touched, remember it: its bytes and mode, or that it did not exist (and
 *    which of its parent directories are missing, since the write creates them).
 * 2. Run the operation: `writeFileAtomic` (temp file, fsync, rename) or `rm`.
 * 3. If one fails, undo the paths already touched, newest first: rewrite the remembered bytes (with
 *    their mode), or remove a file that did not exist and the directories created for it. The path
 *    whose operation failed is undone too (an atomic write leaves it untouched, so that is a no-op).
 * Returns what failed and what could or could not be restored; it never throws for a failed write.
 */
export async function commit(operations: readonly FileOperation[]): Promise<CommitResult> {
  const originals = new Map<string, Original>()
  const order: string[] = []
  for (const operation of operations) {
    try {
      if (!originals.has(operation.path)) {
        originals.set(operation.path, await remember(operation.path))
        order.push(operation.path)
      }
      if (operation.content === null) await rm(operation.path)
      else await writeFileAtomic(operation.path, operation.content)
    } catch (error) {
      const restored: string[] = []
      const unrestored: { path: string; error: unknown }[] = []
      for (const path of order.reverse()) {
        try {
          if (await restore(path, originals.get(path)!)) restored.push(path)
        } catch (restoreError) {
          unrestored.push({ path, error: restoreError })
        }
      }
      return { ok: false, failed: { path: operation.path, error }, restored, unrestored }
    }
  }
  return { ok: true }
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
