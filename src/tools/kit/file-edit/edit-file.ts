// The part edit and multiedit share: under the file's lock, read it, compute the new text, show the
// diff for approval, write it atomically, and record what was written.

import { writeFileAtomic } from "../../../platform/fs/atomic-write.ts"
import { FileSystemError } from "../../../platform/fs/errors.ts"
import { withFileLock } from "../../../platform/fs/lock.ts"
import type { FileEncoding } from "../../../platform/fs/text-encoding.ts"
import type { Context } from "../../../runtime/tool/context.ts"
import { ToolFailure } from "../../../runtime/tool/failure.ts"
import { services } from "../../../runtime/tool/services.ts"
import { pathToWrite } from "../call-path.ts"
import { type FileDiff, fileDiff } from "./diff.ts"
import { encodeEdit } from "./encode-edit.ts"
import { lockFailure, recordWritten, staleness } from "./ledger.ts"
import { readExisting } from "./target.ts"

/** The file as the change sees it: its text without BOM, or nothing yet. */
export type Current =
  | { readonly exists: false }
  | {
      readonly exists: true
      readonly text: string
      /** What `text` was decoded from (see `notFoundHint`). */
      readonly encoding: FileEncoding
    }

export interface EditFileInput<T> {
  readonly ctx: Context
  /** The path the call names: absolute, or relative to the project directory. */
  readonly path: string
  /**
   * The new text (without BOM; one at its start is kept) and whatever the tool reports about it, given
   * the file as it is and its absolute path. Throws `ToolFailure` when the change cannot be made; the
   * file is then untouched.
   */
  readonly change: (
    current: Current,
    filepath: string,
  ) => Promise<{ text: string; info: T }> | { text: string; info: T }
}

export interface EditFileResult<T> extends FileDiff {
  readonly info: T
  /** The file did not exist before. */
  readonly created: boolean
  /** The absolute path that was changed. */
  readonly filepath: string
  /** The path relative to the worktree: the call's title and the permission pattern. */
  readonly title: string
}

/**
 * Changes one file, serialised with every other writer of it.
 *
 * 0. Resolve the call's path against the project and ask `external_directory` when it lies outside
 *    (`pathToWrite`); an abort meanwhile stops here.
 * 1. Take the file's lock (`withFileLock`, shared by every writer); an abort while waiting stops here.
 * 2. Read it without blocking (`readExisting`): a directory, a FIFO or other special file, a binary file
 *    and bytes with no single encoding are errors; text is decoded in the file's own encoding.
 * 3. When the session has a ledger stamp for the file (and read-before-write is on), the file must be
 *    unchanged since; otherwise the model is told to read it again.
 * 4. `change` computes the new text; the diff (common indentation trimmed) and counts follow.
 * 5. Ask `edit` for the path relative to the worktree (always `*`), with `{filepath, diff}`.
 * 6. Encode the new text in the file's encoding (BOM kept if the file or the new text had one), refusing
 *    when a byte outside the edited region would change (`encodeEdit`); write atomically to where the
 *    guard saw the path land; record the written content's stamp in the ledger, publish `file.edited`.
 */
export async function editFile<T>(input: EditFileInput<T>): Promise<EditFileResult<T>> {
  const { ctx } = input
  const { filepath, title, resolved } = await pathToWrite(ctx, input.path)
  ctx.abort.throwIfAborted()
  const tools = services(ctx)
  return withFileLock(
    filepath,
    async (canonical) => {
      ctx.abort.throwIfAborted()
      const existing = await readExisting(canonical, ctx.abort)
      if (existing.kind === "directory") throw new ToolFailure(`Path is a directory, not a file: ${filepath}`)
      if (existing.kind === "refused") throw new ToolFailure(`Cannot edit ${filepath}: ${existing.reason}`)
      if (existing.kind === "file" && tools.requireRead) {
        const stale = await staleness({
          ledger: tools.readLedger,
          sessionID: ctx.sessionID,
          canonical,
          shown: filepath,
          data: existing.data,
        })
        if (stale) throw new ToolFailure(stale)
      }

      const current: Current =
        existing.kind === "file"
          ? { exists: true, text: existing.text, encoding: existing.encoding }
          : { exists: false }
      const { text, info } = await input.change(current, filepath)
      const before = existing.kind === "file" ? existing.text : ""
      const diff = fileDiff({ file: filepath, before, after: text })
      ctx.abort.throwIfAborted()

      await ctx.ask({
        permission: "edit",
        patterns: [title],
        always: ["*"],
        metadata: { filepath, diff: diff.diff },
      })
      ctx.abort.throwIfAborted()

      const content = encodeEdit({ existing, text, shown: filepath })
      await writeOrFail(filepath, content, ctx.abort, resolved)
      await recordWritten({ ledger: tools.readLedger, sessionID: ctx.sessionID, canonical, content })
      tools.publish("file.edited", { file: filepath, sessionID: ctx.sessionID })
      return { ...diff, info, created: existing.kind === "missing", filepath, title }
    },
    { signal: ctx.abort },
  ).catch((error: unknown) => {
    throw lockFailure(error)
  })
}

/** The diff part of edit's and multiedit's metadata. */
export interface DiffMetadata extends Record<string, unknown> {
  /** Unified diff of the change, common indentation trimmed; empty when omitted. */
  diff: string
  additions: number
  deletions: number
  /** Why `diff` is empty although the file changed (too large, too many changed lines). */
  diffOmitted?: string
  /** The untrimmed patch (empty when the diff was omitted) and its counts. */
  filediff: { file: string; patch: string; additions: number; deletions: number }
}

/** The metadata of a file's diff: trimmed for display, untrimmed in `filediff`, and why it was left out. */
export function diffMetadata(filepath: string, change: FileDiff): DiffMetadata {
  const { additions, deletions } = change
  return {
    diff: change.diff,
    additions,
    deletions,
    ...(change.omitted ? { diffOmitted: change.omitted } : {}),
    filediff: { file: filepath, patch: change.patch ?? "", additions, deletions },
  }
}

/** `writeFileAtomic`, with a failure the model can act on (disk full, read-only, ...) as a ToolFailure. */
export async function writeOrFail(
  path: string,
  content: string | Uint8Array,
  signal: AbortSignal,
  expected?: string,
): Promise<void> {
  try {
    await writeFileAtomic(path, content, { signal, ...(expected === undefined ? {} : { expected }) })
  } catch (error) {
    if (error instanceof FileSystemError) throw new ToolFailure(error.message, { cause: error })
    throw error
  }
}
