// The write tool's work (write.ts declares the tool): under the file's lock, the ledger check, the
// diff, the ask and the atomic write. Loaded at the first write.
import type { Stats } from "node:fs"
import { stat } from "node:fs/promises"
import type { z } from "zod"
import { writeFileAtomic } from "../../platform/fs/atomic-write.ts"
import { errorCode, FileSystemError, isAbortError } from "../../platform/fs/errors.ts"
import { withFileLock } from "../../platform/fs/lock.ts"
import { NotRegularFileError, openRegular } from "../../platform/fs/open-regular.ts"
import { checkFresh, recordStamp } from "../../platform/fs/read-ledger.ts"
import { countLines as countFileLines } from "../../platform/fs/read-lines.ts"
import {
  detectBom,
  hashContent,
  isProbablyBinary,
  SNIFF_BYTES,
  splitBom,
  withBom,
} from "../../platform/fs/text.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { services } from "../../runtime/tool/services.ts"
import { pathToWrite } from "../kit/call-path.ts"
import { withDiagnostics } from "../kit/diagnostics/edit-diagnostics.ts"
import { countLines, fileDiff, MAX_DIFF_CHARS } from "../kit/file-edit/diff.ts"
import { readHead } from "../kit/paths.ts"
import { DIFF_CONTEXT, type WriteMetadata as Metadata, type Parameters } from "./params.ts"

export async function execute(
  params: z.output<Parameters>,
  ctx: Tool.Context,
): Promise<Tool.Result<Metadata>> {
  // 1. Resolve the path (relative to the project) and guard paths outside the project.
  const { filepath, title, resolved } = await pathToWrite(ctx, params.filePath)
  const { readLedger, requireRead, publish } = services(ctx)

  // 2. Under the file's lock (shared with every writer): check freshness, diff, ask `edit`, write.
  const written = await withFileLock(
    filepath,
    async () => {
      const existing = await statExisting(filepath)
      if (existing?.isDirectory())
        throw new Tool.ToolFailure(
          `Cannot write ${filepath}: it is a directory, not a file. Give the path of a file.`,
        )
      if (existing && !existing.isFile())
        throw new Tool.ToolFailure(
          `Cannot write ${filepath}: it is not a regular file (a device, FIFO or socket), so it is not replaced. Give the path of a regular file.`,
        )
      if (existing && requireRead) {
        const fresh = await checkFresh(readLedger, ctx.sessionID, filepath, { signal: ctx.abort })
        if (!fresh.ok) throw new Tool.ToolFailure(fresh.message)
      }
      const old = existing ? await readOld(filepath, existing.size, ctx.abort) : NO_FILE
      const next = splitBom(params.content)
      const content = withBom(next.text, old.bom || next.bom)
      const change =
        old.text === undefined
          ? { diff: "", additions: countLines(next.text), deletions: old.lines, omitted: old.omitted }
          : fileDiff({
              file: filepath,
              before: old.text,
              after: next.text,
              context: DIFF_CONTEXT,
              exactLineEndings: true,
            })

      await ctx.ask({
        permission: "edit",
        patterns: [title],
        always: ["*"],
        metadata: { filepath, diff: change.diff },
      })

      // Every toolbelt process takes the lock held here, so only a program that does not (an editor, a
      // script) can have changed the file since the checks above: never overwrite what nobody saw.
      const now = await statExisting(filepath)
      if (changedSince(existing, now)) throw new Tool.ToolFailure(changedMeanwhile(filepath, existing, now))
      // Lands where the guard decided, or not at all (a symlink planted meanwhile is refused).
      await writeFileAtomic(filepath, content, {
        signal: ctx.abort,
        ...(resolved ? { expected: resolved } : {}),
      })
      const after = await stat(filepath)
      await recordStamp(readLedger, ctx.sessionID, filepath, {
        hash: hashContent(content),
        mtime: after.mtimeMs,
        size: after.size,
      })
      return { change, exists: existing !== undefined }
    },
    { signal: ctx.abort },
  ).catch((error: unknown) => {
    throw describeError(error, filepath)
  })

  // 3. Tell whoever watches, and shape the result.
  publish("file.edited", { file: filepath, sessionID: ctx.sessionID })
  const { change, exists } = written
  return withDiagnostics(ctx, [filepath], {
    title,
    output: "Wrote file successfully.",
    metadata: {
      diff: change.diff,
      additions: change.additions,
      deletions: change.deletions,
      exists,
      filepath,
      ...(change.omitted ? { diffOmitted: change.omitted } : {}),
    },
  })
}

interface OldContent {
  readonly bom: boolean
  /** The text without its BOM; undefined when it was too large or binary to diff. */
  readonly text: string | undefined
  readonly lines: number
  readonly omitted?: string
}

const NO_FILE: OldContent = { bom: false, text: "", lines: 0 }

/**
 * What the file holds before the write: its text for the diff, unless it is too large (then only its
 * BOM and line count, streamed) or binary.
 */
async function readOld(filepath: string, size: number, signal: AbortSignal): Promise<OldContent> {
  if (size <= MAX_DIFF_CHARS) {
    const handle = await openRegular(filepath).catch(notRegular(filepath))
    const bytes = await handle.readFile({ signal }).finally(() => handle.close())
    if (isProbablyBinary(bytes.subarray(0, SNIFF_BYTES)))
      return { bom: false, text: undefined, lines: 0, omitted: "the old content is binary" }
    const old = splitBom(bytes.toString("utf8"))
    return { bom: old.bom, text: old.text, lines: countLines(old.text) }
  }
  const head = await readHead(filepath).catch(notRegular(filepath))
  if (isProbablyBinary(head))
    return { bom: false, text: undefined, lines: 0, omitted: "the old content is binary" }
  return {
    bom: detectBom(head)?.encoding === "utf-8",
    text: undefined,
    lines: await countFileLines(filepath, { signal }),
    omitted: "the file is too large to diff",
  }
}

/** A failure the model can act on for the system errors a write meets; anything else stays a defect. */
function describeError(error: unknown, filepath: string): unknown {
  if (isAbortError(error) || Tool.isToolFailure(error)) return error
  if (error instanceof FileSystemError) return new Tool.ToolFailure(error.message, { cause: error })
  const code = errorCode(error)
  if (code === "EACCES" || code === "EPERM")
    return new Tool.ToolFailure(
      `Cannot write ${filepath}: permission denied. Fix the permissions (ls -l shows them), or write somewhere else.`,
      { cause: error },
    )
  return error
}

/** Whether the file is another version than `before`: any write moves the ctime, a rename changes the inode. */
function changedSince(before: Stats | undefined, now: Stats | undefined): boolean {
  if (!before || !now) return before !== now
  return (
    before.ino !== now.ino ||
    before.size !== now.size ||
    before.mtimeMs !== now.mtimeMs ||
    before.ctimeMs !== now.ctimeMs
  )
}

/**
 * What happened when the file changed between the write's checks and its rename. No permission prompt is
 * implied: the window is the diff and the ask, which may not have asked anyone.
 */
function changedMeanwhile(filepath: string, before: Stats | undefined, now: Stats | undefined): string {
  const what = !before ? "was created" : !now ? "was deleted" : "was changed"
  const next = now ? "Read it again, then write." : "Write it again if it should still be created."
  return (
    `The file ${filepath} ${what} by another program while this call was preparing the write ` +
    `(after it checked the file, before it replaced it). Nothing was written. ${next}`
  )
}

/**
 * What is at `path`, or undefined when nothing is (missing, or under a regular file). Unlike read and
 * list (`statOrUndefined`), a symlink loop is an error here, not a file to create.
 */
async function statExisting(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path)
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined
    throw error
  }
}

/** A FIFO or device swapped in after the type check: a clear refusal, never a blocked open. */
function notRegular(filepath: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof NotRegularFileError)
      throw new Tool.ToolFailure(
        `Cannot write ${filepath}: it was replaced by something that is not a regular file while the write was prepared, so nothing was written. Check what is at that path.`,
      )
    throw error
  }
}
