// The read ledger as the editing tools use it: an edit is checked against what the session last saw of
// the file, when it saw it at all, and what a tool writes becomes what the session has seen. The check
// runs under the file's lock, which another process may hold too long: that is said as a retry.

import { stat } from "node:fs/promises"
import { FileLockError } from "../../../platform/fs/process-lock.ts"
import { isUnchanged, type ReadLedger } from "../../../platform/fs/read-ledger.ts"
import { hashContent } from "../../../platform/fs/text.ts"
import { ToolFailure } from "../../../runtime/tool/failure.ts"

/**
 * A file lock that could not be taken (`FileLockError`: another toolbelt process held it past the wait,
 * named with a request to retry; or no lock directory) as a failure the model sees; any other error
 * unchanged.
 */
export function lockFailure(error: unknown): unknown {
  return error instanceof FileLockError ? new ToolFailure(error.message, { cause: error }) : error
}

/**
 * Why an edit of `path` must not go ahead, or undefined when it may.
 *
 * Editing does not require a read (the edit's own oldString shows what the model expects), but when the
 * session has a stamp for the file, the file must still be what it saw: otherwise the model works from
 * a stale copy and should read it again. `canonical` is the file's canonical path (the ledger key) and
 * `data` its bytes as read now; `shown` is the path as the model knows it.
 */
export async function staleness(input: {
  ledger: ReadLedger
  sessionID: string
  canonical: string
  shown: string
  data: Uint8Array
}): Promise<string | undefined> {
  const entry = await input.ledger.get(input.sessionID, input.canonical)
  if (!entry) return undefined
  if (await isUnchanged(entry, input.canonical, { data: input.data }).catch(() => false)) return undefined
  return (
    `The file ${input.shown} has changed since you last read it (at ${new Date(entry.time).toISOString()}): ` +
    "another tool call or something outside this session modified it. " +
    "Read the file again, then make the edit against its current content."
  )
}

/**
 * Records that the session has seen `content`, just written to `canonical`, so a later edit or write in
 * the same session counts it as read. The hash is of the bytes written; only the mtime is read back.
 */
export async function recordWritten(input: {
  ledger: ReadLedger
  sessionID: string
  canonical: string
  content: string | Uint8Array
}): Promise<void> {
  const bytes = typeof input.content === "string" ? Buffer.from(input.content, "utf8") : input.content
  const stats = await stat(input.canonical)
  await input.ledger.record(input.sessionID, input.canonical, {
    hash: hashContent(bytes),
    size: bytes.byteLength,
    mtime: stats.mtimeMs,
  })
}
