// A page of lines: what a read asks for (with opencode's limits as defaults), what it returns, and the
// shaping of that result, shared by every way a page is read (read-lines.ts lists them).
import type { Stats } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import type { LineIndexFolder } from "./line-index-file.ts"
import type { PageCollector } from "./page-collector.ts"
import type { FileVersion } from "./read-ledger.ts"

/** opencode's read limits: 2000 lines, 2000 characters per line, 50 KB per page. */
export const DEFAULT_READ_LIMITS = { limit: 2000, maxLineLength: 2000, maxBytes: 50 * 1024 } as const

export interface ReadLinesOptions {
  /** First line to return, 1-based (0 counts as 1). Default 1. */
  offset?: number
  /** Most lines to return. Default 2000. */
  limit?: number
  /** Longer lines are cut to this many UTF-16 characters and marked. Default 2000. */
  maxLineLength?: number
  /**
   * Budget for the page: each line costs its UTF-8 bytes plus one for the newline; reading stops before
   * the line that would exceed it. Default 50 KiB.
   */
  maxBytes?: number
  /**
   * Keep scanning past the page to count every line of the file (`totalLines`). Default true. Scans that
   * reach the end also build the line index, so the next page of the same file seeks straight to it.
   */
  countTotal?: boolean
  /** Also return the SHA-256 of the whole file, hashed in the same pass (or known from the index). */
  hash?: boolean
  /**
   * Where line indexes of large files are saved, so a new process seeks as fast as the one that counted
   * (a fresh scan saves; a read without a cached index loads).
   */
  savedIndexes?: LineIndexFolder
  signal?: AbortSignal
}

export interface ReadLinesResult {
  /** The lines, without their line breaks (LF or CRLF) and without a leading BOM. */
  lines: string[]
  /** Number of the last returned line (1-based); `offset - 1` when no line was returned. */
  lastLine: number
  /** Lines in the file, when the whole file was scanned or its line index was known. */
  totalLines?: number
  /** Whether lines after `lastLine` exist. */
  more: boolean
  /** Whether the page stopped early because of `maxBytes`. */
  truncatedByBytes: boolean
  /** How many of the returned lines were cut to `maxLineLength`. */
  cutLines: number
  /** SHA-256 (hex) of the file's bytes, when asked for. */
  hash?: string
  /** The version of the file that was read (as it was when opened): size, times, identity. */
  size: number
  mtimeMs: number
  ctimeMs: number
  ino: number
  dev: number
}

/** The limits of a page, with the defaults filled in and out-of-range values clamped. */
export interface ResolvedOptions {
  offset: number
  limit: number
  maxLineLength: number
  maxBytes: number
}

export function resolveOptions(options: ReadLinesOptions): ResolvedOptions {
  return {
    offset: Math.max(1, Math.floor(options.offset ?? 1)),
    limit: Math.max(0, Math.floor(options.limit ?? DEFAULT_READ_LIMITS.limit)),
    maxLineLength: Math.max(1, options.maxLineLength ?? DEFAULT_READ_LIMITS.maxLineLength),
    maxBytes: Math.max(1, options.maxBytes ?? DEFAULT_READ_LIMITS.maxBytes),
  }
}

/** The facts of a file version a page reports (a `Stats` has them): the read ledger's `FileVersion`. */
export type PageFileVersion = FileVersion

/** A page being read from an open file: each way of reading one fills `collector` and shapes the result. */
export interface StreamedPage {
  readonly handle: FileHandle
  /** The file as it was when the read began. */
  readonly stats: Stats
  readonly options: ResolvedOptions
  readonly collector: PageCollector
  /** Whether the SHA-256 of the whole file is asked for. */
  readonly wantHash: boolean
  readonly signal: AbortSignal | undefined
}

/** The result of a page read: the collector's lines and counts, what the read learnt, and the version read. */
export function finishPage(
  collector: PageCollector,
  options: ResolvedOptions,
  stats: PageFileVersion,
  extra: { totalLines?: number; more: boolean; hash?: string | undefined },
): ReadLinesResult {
  const result: ReadLinesResult = {
    lines: collector.lines,
    lastLine: collector.lastLine(options.offset),
    more: extra.more || collector.truncatedByBytes,
    truncatedByBytes: collector.truncatedByBytes,
    cutLines: collector.cutLines,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    ino: stats.ino,
    dev: stats.dev,
  }
  if (extra.totalLines !== undefined) result.totalLines = extra.totalLines
  if (extra.hash !== undefined) result.hash = extra.hash
  return result
}
