import { readdir, readFile, stat } from "node:fs/promises"
import { basename, dirname, extname, join, resolve } from "node:path"
import { z } from "zod"
import { errorCode, isAbortError } from "../../platform/fs/errors.ts"
import { LineIndexFolder } from "../../platform/fs/line-index-file.ts"
import { identityFingerprint, LEDGER_HASH_MAX_BYTES, recordStamp } from "../../platform/fs/read-ledger.ts"
import { readLines } from "../../platform/fs/read-lines.ts"
import { readLinesFromBytes } from "../../platform/fs/read-lines-from-bytes.ts"
import { DEFAULT_READ_LIMITS } from "../../platform/fs/read-lines-page.ts"
import { hashContent, isProbablyBinary, type Media, SNIFF_BYTES, sniffMedia } from "../../platform/fs/text.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { callPath } from "../kit/call-path.ts"
import { checkExternalDirectory } from "../kit/external-directory.ts"
import { loadText } from "../kit/load-text.ts"
import { readHead, statOrUndefinedSync } from "../kit/paths.ts"
import {
  formatDirectoryPage,
  formatFilePage,
  formatInstructions,
  notFoundMessage,
  PREVIEW_LINES,
  similarNames,
} from "./format.ts"
import { findInstructions } from "./instructions.ts"
import { pageKey, recentPages, type TextPage } from "./page-cache.ts"
import { readSmallFile, versionOf } from "./small-file.ts"

/** Files up to this size are read whole, in one read, rather than streamed. */
export const WHOLE_FILE_BYTES = 256 * 1024

/** Images and PDFs larger than this are refused rather than attached (a data: URL is held in memory). */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024

const parameters = builtinSchema("read", () =>
  z.object({
    filePath: z
      .string()
      .describe(
        "The absolute path to the file or directory to read (a path relative to the project also works)",
      ),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("The line number to start reading from, 1-indexed (for a directory: the entry number)"),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `The maximum number of lines (or directory entries) to read (default ${DEFAULT_READ_LIMITS.limit})`,
      ),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface ReadMetadata extends Record<string, unknown> {
  /** The first lines (or entries) of the page, without line numbers. */
  preview: string
  /** Whether anything was left out: more lines or entries follow, or the page was cut by bytes. Always set. */
  truncated: boolean
  /** Instruction files attached to this result. */
  loaded: string[]
  /** Lines in the file (files) or entries (directories). */
  totalLines?: number
  totalEntries?: number
}

/**
 * Reads a file (a page of numbered lines), a directory (a page of entries), or an image or PDF (an
 * attachment). It bounds its own output (`truncated` is always set), so the runtime passes it through.
 *
 * 1. Resolve the path against the project and stat it (a missing path is not an error yet).
 * 2. Guard paths outside the project (`external_directory`), then ask `read` for the path relative to
 *    the worktree (one spelling per file: a saved `.env` is that file, never `sub/.env`), always `*`;
 *    when a sensitive-path rule asks (`read *.env`), the engine offers and saves the path itself
 *    instead (`runtime/permission/always-scope.ts`).
 * 3. Missing: `File not found` with similar siblings. Directory: a sorted page of entries. Images and
 *    PDFs (by magic bytes, up to 10 MB): an attachment. Binary: refused. Text: one streamed pass gives
 *    the page, the line count and the hash recorded in the session's read ledger.
 * 4. Shape opencode's page with its footer, then the instruction files this session has not seen.
 */
export const ReadTool = Tool.define<Parameters, ReadMetadata>(
  "read",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. Resolve the path (relative to the project) and see what is there.
      const { filepath, title } = callPath(ctx, params.filePath)
      const stats = await guarded(filepath, async () => statOrUndefinedSync(filepath))

      // 2. Guard paths outside the project (its canonical path keys the ledger), then ask `read` (worktree path).
      const { resolved } = await checkExternalDirectory(ctx, filepath, {
        kind: stats?.isDirectory() ? "directory" : "file",
      })
      const stamped = resolved === undefined ? {} : { canonical: resolved }
      await ctx.ask({ permission: "read", patterns: [title], always: ["*"], metadata: {} })

      // 3. Do the work: a missing path, a directory, media, binary, or text.
      const { directory, readLedger, firstTime, dataDir } = services(ctx)
      // A text page is answered with the instruction files this session has not seen yet.
      const answer = (page: TextPage) =>
        withInstructions({
          page,
          title,
          filepath,
          directory,
          firstTime: (key) => firstTime(ctx.sessionID, key),
        })
      if (!stats) throw new Tool.ToolFailure(notFoundMessage(filepath, await siblingsLike(filepath)))
      const offset = Math.max(1, params.offset ?? 1)
      const limit = params.limit ?? DEFAULT_READ_LIMITS.limit
      if (stats.isDirectory()) return readDirectory({ filepath, title, offset, limit, signal: ctx.abort })
      if (!stats.isFile())
        throw new Tool.ToolFailure(
          `Cannot read ${filepath}: it is not a regular file (a device, FIFO or socket). Give the path of a file or a directory.`,
        )

      // A small file read before whose version settled: its page as it was, without reading it.
      const small = stats.size <= WHOLE_FILE_BYTES
      const key = pageKey(filepath, offset, limit)
      const known = small ? recentPages.settled(stats, key) : undefined
      if (known) {
        await recordStamp(
          readLedger,
          ctx.sessionID,
          filepath,
          { hash: known.hash, mtime: stats.mtimeMs, size: stats.size },
          stamped,
        )
        return answer(known)
      }

      // A small file is read whole, in one synchronous read (cheaper than the streaming reader's trips
      // through the thread pool); a larger one is streamed.
      const whole = small
        ? await guarded(filepath, async () => readSmallFile(filepath, stats, key, WHOLE_FILE_BYTES))
        : undefined
      // The same bytes as a page kept (a file written moments ago, read again): that page. Looked for
      // again after the wait: a read of the same new content started together may have kept it since.
      const same =
        whole?.same ?? (whole?.bytes ? recentPages.same(whole.bytes, versionOf(whole.stats), key) : undefined)
      if (same && whole) {
        await recordStamp(
          readLedger,
          ctx.sessionID,
          filepath,
          { hash: same.hash, mtime: whole.stats.mtimeMs, size: whole.length },
          stamped,
        )
        return answer(same)
      }
      const bytes = whole?.bytes
      const head = bytes ? bytes.subarray(0, SNIFF_BYTES) : await guarded(filepath, () => readHead(filepath))
      const media = sniffMedia(head)
      if (media) {
        const result = await readMedia({
          filepath,
          title,
          media,
          size: stats.size,
          bytes,
          signal: ctx.abort,
        })
        await recordStamp(readLedger, ctx.sessionID, filepath, result.stamp)
        return result.result
      }
      if (isProbablyBinary(head, extname(filepath))) {
        // The session has seen what there is to see: a small binary file may then be overwritten by write.
        if (stats.size <= MAX_MEDIA_BYTES)
          await recordStamp(readLedger, ctx.sessionID, filepath, undefined, { signal: ctx.abort })
        throw new Tool.ToolFailure(`Cannot read binary file: ${filepath}`)
      }

      // Small files are hashed in the same pass; large ones are known by their identity (see the ledger).
      const hash = stats.size <= LEDGER_HASH_MAX_BYTES
      // Large files' line indexes are kept in the data directory: the next process seeks straight to a page.
      const savedIndexes = dataDir ? new LineIndexFolder(join(dataDir, "line-index")) : undefined
      const version = whole ? versionOf(whole.stats) : undefined
      const readAt = whole?.readAt
      const page =
        bytes && version
          ? readLinesFromBytes(
              bytes,
              { ...version, size: bytes.length },
              { offset, limit, hash: true, readAt },
            )
          : await guarded(filepath, () =>
              readLines(filepath, {
                offset,
                limit,
                hash,
                signal: ctx.abort,
                ...(savedIndexes ? { savedIndexes } : {}),
              }),
            )
      const totalLines = page.totalLines ?? page.lastLine
      if (offset > totalLines && !(totalLines === 0 && offset === 1))
        throw new Tool.ToolFailure(`Offset ${offset} is out of range for this file (${totalLines} lines)`)
      const stamp = page.hash ?? identityFingerprint(page)
      // 4. Shape the result: opencode's page, then the instructions once per session.
      const text: TextPage = {
        output: formatFilePage({
          path: filepath,
          offset,
          lines: page.lines,
          lastLine: page.lastLine,
          totalLines,
          truncatedByBytes: page.truncatedByBytes,
          maxBytes: DEFAULT_READ_LIMITS.maxBytes,
        }),
        preview: page.lines.slice(0, PREVIEW_LINES).join("\n"),
        truncated: page.more || page.truncatedByBytes,
        totalLines,
        hash: stamp,
      }
      // Kept before any await: reads of the same new content started together find it, not derive it.
      if (version && bytes && version.size === bytes.length)
        recentPages.set(version, text, key, { bytes, now: readAt })
      await recordStamp(
        readLedger,
        ctx.sessionID,
        filepath,
        { hash: stamp, mtime: page.mtimeMs, size: page.size },
        stamped,
      )
      return answer(text)
    },
  }),
  {
    annotations: { readOnly: true },
    // Its own page limits: the hint after a truncated result names calls to it that fit them.
    paging: {
      path: "filePath",
      offset: "offset",
      limit: "limit",
      maxLines: DEFAULT_READ_LIMITS.limit,
      maxBytes: DEFAULT_READ_LIMITS.maxBytes,
      maxLineLength: DEFAULT_READ_LIMITS.maxLineLength,
    },
  },
)

/** The tool's result for a text page: the page, then the instruction files this session has not seen. */
async function withInstructions(input: {
  page: TextPage
  title: string
  filepath: string
  directory: string
  firstTime: (key: string) => boolean
}) {
  const { page, title, filepath, directory, firstTime } = input
  const instructions = await findInstructions({ file: filepath, root: resolve(directory), firstTime })
  return {
    title,
    output: instructions.length > 0 ? `${page.output}\n\n${formatInstructions(instructions)}` : page.output,
    metadata: {
      preview: page.preview,
      truncated: page.truncated,
      loaded: instructions.map((item) => item.path),
      totalLines: page.totalLines,
    },
  }
}

/** Up to three names in the missing file's directory that look like it, as full paths. */
async function siblingsLike(filepath: string): Promise<string[]> {
  const dir = dirname(filepath)
  let names: string[]
  try {
    names = (await readdir(dir)).sort((a, b) => a.localeCompare(b))
  } catch {
    return []
  }
  return similarNames(basename(filepath), names).map((name) => join(dir, name))
}

async function readMedia(input: {
  filepath: string
  title: string
  media: Media
  size: number
  /** The file's bytes, when the caller has read them already. */
  bytes: Buffer | undefined
  signal: AbortSignal
}) {
  const { filepath, media } = input
  const what = media.kind === "pdf" ? "PDF" : "image"
  if (input.size > MAX_MEDIA_BYTES)
    throw new Tool.ToolFailure(
      `Cannot read ${filepath}: the ${what} is ${megabytes(input.size)} MB, over the ${megabytes(MAX_MEDIA_BYTES)} MB limit for attachments. Give a smaller file (resize or split it first).`,
    )
  const bytes = input.bytes ?? (await guarded(filepath, () => readFile(filepath, { signal: input.signal })))
  if (bytes.length > MAX_MEDIA_BYTES)
    throw new Tool.ToolFailure(
      `Cannot read ${filepath}: the ${what} is ${megabytes(bytes.length)} MB, over the ${megabytes(MAX_MEDIA_BYTES)} MB limit for attachments. Give a smaller file (resize or split it first).`,
    )
  const output = media.kind === "pdf" ? "PDF read successfully" : "Image read successfully"
  const after = await stat(filepath).catch(() => undefined)
  return {
    stamp: { hash: hashContent(bytes), mtime: after?.mtimeMs ?? 0, size: bytes.length },
    result: {
      title: input.title,
      output,
      metadata: { preview: output, truncated: false, loaded: [] as string[] },
      attachments: [
        {
          type: "file" as const,
          mime: media.mime,
          url: `data:${media.mime};base64,${bytes.toString("base64")}`,
        },
      ],
    },
  }
}

function megabytes(bytes: number): string {
  const value = bytes / (1024 * 1024)
  return Number.isInteger(value) ? String(value) : value.toFixed(1)
}

async function readDirectory(input: {
  filepath: string
  title: string
  offset: number
  limit: number
  signal: AbortSignal
}) {
  const { filepath, offset, limit } = input
  const dirents = await guarded(filepath, () => readdir(filepath, { withFileTypes: true }))
  const entries: string[] = []
  for (const dirent of dirents) {
    input.signal.throwIfAborted()
    const isDir =
      dirent.isDirectory() || (dirent.isSymbolicLink() && (await isDirectory(join(filepath, dirent.name))))
    entries.push(isDir ? `${dirent.name}/` : dirent.name)
  }
  entries.sort((a, b) => a.localeCompare(b))
  if (entries.length > 0 && offset > entries.length)
    throw new Tool.ToolFailure(
      `Offset ${offset} is out of range for this directory (${entries.length} entries)`,
    )
  const page = entries.slice(offset - 1, offset - 1 + limit)
  return {
    title: input.title,
    output: formatDirectoryPage({ path: filepath, offset, entries: page, totalEntries: entries.length }),
    metadata: {
      preview: page.slice(0, PREVIEW_LINES).join("\n"),
      truncated: offset - 1 + page.length < entries.length,
      loaded: [] as string[],
      totalEntries: entries.length,
    },
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}

/** Runs a file operation; a permission problem becomes a failure the model can act on. */
async function guarded<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    throw describeReadError(error, path)
  }
}

function describeReadError(error: unknown, path: string): unknown {
  if (isAbortError(error)) return error
  switch (errorCode(error)) {
    case "EACCES":
    case "EPERM":
      return new Tool.ToolFailure(
        `Cannot read ${path}: permission denied. Fix the permissions (ls -l shows them), or read another file.`,
      )
    case "ENOENT":
      // opencode's words first, as for a file missing from the start; what toolbelt adds goes after them.
      return new Tool.ToolFailure(
        `File not found: ${path}\n\nIt was removed while being read. List its directory to see whether it moved.`,
      )
    case "EISDIR":
      return new Tool.ToolFailure(
        `Cannot read ${path}: it became a directory. Read it again to see its entries.`,
      )
    default:
      return error
  }
}
