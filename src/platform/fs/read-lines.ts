// Why one file of ~590 lines: it is the read path of the `read` tool in its three speeds (a small file
// read whole, a large file paged through a saved line index, a first count at wc -l speed), which share
// the version checks and the page shaping; the pieces with a job of their own already live beside it
// (chunk-reader.ts, page-collector.ts, line-index.ts, newline-counter.ts).
import * as nodeBuffer from "node:buffer"
import type { Hash } from "node:crypto"
import type { Stats } from "node:fs"
import { type FileHandle, open } from "node:fs/promises"
import { CHUNK_BYTES, ChunkReader, giveCounter, takeCounter } from "./chunk-reader.ts"
import { type Checkpoint, type IndexBuilder, type LineIndex, lineIndexCache } from "./line-index.ts"
import type { LineIndexFolder } from "./line-index-file.ts"
import { PageCollector } from "./page-collector.ts"
import type { FileVersion } from "./read-ledger.ts"
import { detectBom, sha256 } from "./text.ts"
import { smallFileHashes } from "./version-cache.ts"

/** opencode's read limits: 2000 lines, 2000 characters per line, 50 KB per page. */
export const DEFAULT_READ_LIMITS = { limit: 2000, maxLineLength: 2000, maxBytes: 50 * 1024 } as const

export { lineCutMarker } from "./page-collector.ts"

/** Line breaks are counted this many bytes at a time (the granularity of index checkpoints in bulk). */
const COUNT_BLOCK_BYTES = 1 << 16
/** Bytes read at a time when scanning backwards from the end. */
const TAIL_CHUNK_BYTES = 1 << 16
const LF = 0x0a
const EMPTY = Buffer.alloc(0)
/** `buffer.isAscii` (Node 18.15+); a runtime without it pays a byte count per line instead. */
const isAscii: (bytes: Buffer) => boolean =
  (nodeBuffer as { isAscii?: (bytes: Buffer) => boolean }).isAscii ?? (() => false)

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

/**
 * Reads one page of lines from a text file of any size, without loading the file.
 *
 * 1. Open the file. If a fresh line index is cached for it (same inode, size, mtime and ctime), seek:
 *    start at the nearest indexed line before `offset`, or find `offset` by reading backwards from the
 *    nearest indexed line (or end of file) after it, whichever is closer. The total is known, so nothing
 *    after the page is read: the last page of a 1 GiB file costs about what `tail -n` does.
 * 2. Otherwise scan from the start in 1 MiB chunks, counting line breaks with `Buffer.indexOf` (no
 *    decoding) until `offset`; remember the byte offset of every 10,000th line (or every MiB).
 * 3. Collect the page: decode whole lines (so multi-byte characters split across chunks decode
 *    correctly), cut long lines to `maxLineLength` without keeping more than a few bytes per character
 *    of them, stop at `limit` lines or before the line that would exceed `maxBytes`.
 * 4. Unless `countTotal` is false (and no hash is asked for), keep counting to the end; a full scan of a
 *    file of 1 MiB or more stores its line index (and hash) for the next call.
 * Lines end at LF; a CR before it is dropped; a last line without a newline still counts. UTF-16 files
 * (with their BOM) are decoded as such, without an index. Aborting `signal` rejects with its reason.
 */
export async function readLines(path: string, options: ReadLinesOptions = {}): Promise<ReadLinesResult> {
  const handle = await open(path, "r")
  try {
    return await readPage(handle, options)
  } finally {
    await handle.close()
  }
}

/** Number of lines in the file; the scan also stores its line index for later pages (files ≥ 1 MiB). */
export async function countLines(path: string, options: { signal?: AbortSignal } = {}): Promise<number> {
  const result = await readLines(path, { limit: 0, countTotal: true, ...options })
  return result.totalLines ?? 0
}

export interface ReadLastLinesOptions {
  /** Longer lines are cut to this many UTF-16 characters and marked. Default 2000. */
  maxLineLength?: number
  /** Saved line indexes to number the lines with (see `ReadLinesOptions.savedIndexes`). */
  savedIndexes?: LineIndexFolder
  signal?: AbortSignal
}

export interface ReadLastLinesResult {
  lines: string[]
  /** Number of the first returned line, when the file's line index is known (otherwise it would cost a scan). */
  firstLine?: number
  totalLines?: number
  cutLines: number
}

/**
 * The last `count` lines of a file, found like `tail -n` does: reading backwards from the end in 64 KiB
 * blocks, so the cost depends on the size of the lines asked for, not of the file. Line numbers are
 * given when the file's line index is cached (after a full `readLines` or `countLines`).
 */
export async function readLastLines(
  path: string,
  count: number,
  options: ReadLastLinesOptions = {},
): Promise<ReadLastLinesResult> {
  const handle = await open(path, "r")
  try {
    const stats = await handle.stat()
    const head = Buffer.alloc(4)
    await handle.read(head, 0, 4, 0)
    const bom = detectBom(head)
    if (bom && bom.encoding !== "utf-8") {
      // UTF-16 has no byte-level line breaks to search for: count, then read the page.
      const total = (await readPage(handle, { limit: 0, signal: options.signal })).totalLines ?? 0
      const offset = Math.max(1, total - count + 1)
      const page = await readPage(handle, { ...options, offset, limit: count, maxBytes: Infinity })
      return { lines: page.lines, firstLine: offset, totalLines: total, cutLines: page.cutLines }
    }
    const start = await startOfLastLines(handle, stats.size, count, options.signal)
    const collector = new PageCollector({
      limit: count,
      maxLineLength: options.maxLineLength ?? DEFAULT_READ_LIMITS.maxLineLength,
      maxBytes: Infinity,
    })
    await scan(handle, {
      startByte: start,
      startLine: 1,
      offset: 1,
      collector,
      untilEnd: false,
      signal: options.signal,
    })
    const index = await cachedIndex(stats, options.savedIndexes)
    const result: ReadLastLinesResult = { lines: collector.lines, cutLines: collector.cutLines }
    if (index) {
      result.totalLines = index.totalLines
      result.firstLine = index.totalLines - collector.lines.length + 1
    }
    return result
  } finally {
    await handle.close()
  }
}

/**
 * Where to start scanning for line `offset` with a line index: the nearest checkpoint before it, or, when a
 * checkpoint after it (or the end of the file) is nearer, the exact start of the line found by scanning
 * backwards from there. Either way at most half a stride of lines is passed over.
 */
async function seek(
  handle: FileHandle,
  index: LineIndex,
  size: number,
  offset: number,
  signal: AbortSignal | undefined,
): Promise<Checkpoint> {
  const before = index.checkpointBefore(offset)
  if (offset > index.totalLines) return before
  const after = index.checkpointAfter(offset) ?? { line: index.totalLines + 1, byte: size }
  if (after.line - offset >= offset - before.line) return before
  return { line: offset, byte: await startOfLastLines(handle, after.byte, after.line - offset, signal) }
}

/**
 * Byte offset where the last `count` lines before `end` begin; `end` is the start of a line or the end
 * of the file.
 */
async function startOfLastLines(
  handle: FileHandle,
  end: number,
  count: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  if (count <= 0) return end
  const counter = takeCounter()
  try {
    const block = counter.buffers[0]!.subarray(0, TAIL_CHUNK_BYTES)
    let found = 0
    let first = true
    for (let until = end; until > 0; ) {
      signal?.throwIfAborted()
      const from = Math.max(0, until - TAIL_CHUNK_BYTES)
      const { bytesRead } = await handle.read(block, 0, until - from, from)
      let searchFrom = bytesRead - 1
      // The newline just before `end` ends the line before it; it does not start another one.
      if (first && block[bytesRead - 1] === LF) searchFrom--
      first = false
      while (searchFrom >= 0) {
        const at = block.lastIndexOf(LF, searchFrom)
        if (at === -1) break
        found++
        if (found === count) return from + at + 1
        searchFrom = at - 1
      }
      until = from
    }
    return 0
  } finally {
    giveCounter(counter)
  }
}

interface ResolvedOptions {
  offset: number
  limit: number
  maxLineLength: number
  maxBytes: number
}

function resolveOptions(options: ReadLinesOptions): ResolvedOptions {
  return {
    offset: Math.max(1, Math.floor(options.offset ?? 1)),
    limit: Math.max(0, Math.floor(options.limit ?? DEFAULT_READ_LIMITS.limit)),
    maxLineLength: Math.max(1, options.maxLineLength ?? DEFAULT_READ_LIMITS.maxLineLength),
    maxBytes: Math.max(1, options.maxBytes ?? DEFAULT_READ_LIMITS.maxBytes),
  }
}

/** The facts of a file version a page reports (a `Stats` has them): the read ledger's `FileVersion`. */
export type PageFileVersion = FileVersion

/**
 * `readLines` for a file already in memory (a small file read whole): the same page, total and hash,
 * computed synchronously from `bytes`, with `version` (the file's stat) reported as its version.
 * Reading a small file whole and paging it here costs one read instead of the open/stat/read/close
 * round trips of the streaming reader, each a hop through the thread pool.
 */
export function readLinesFromBytes(
  bytes: Buffer,
  version: PageFileVersion,
  options: Omit<ReadLinesOptions, "savedIndexes" | "signal"> = {},
): ReadLinesResult {
  const resolved = resolveOptions(options)
  const { offset } = resolved
  const collector = new PageCollector(resolved)
  const bom = detectBom(bytes.subarray(0, 4))
  // Decoded once, then split: a line break is a character boundary in every encoding read here, so this
  // is the same text line by line decoding gives, for a fraction of the calls into the runtime.
  const text =
    bom && bom.encoding !== "utf-8"
      ? new TextDecoder(bom.encoding, { ignoreBOM: true }).decode(bytes)
      : bytes.toString("utf8")
  // ASCII bytes are one character each, so a line's UTF-8 size is its length.
  const ascii = (bom === undefined || bom.encoding === "utf-8") && isAscii(bytes)
  const keep = collector.capChars
  let line = 1
  let start = 0
  while (start < text.length) {
    const newline = text.indexOf("\n", start)
    const end = newline === -1 ? text.length : newline
    if (line >= offset && !collector.done) {
      collector.addText(text.slice(start, Math.min(end, start + keep)), end - start > keep, line === 1, ascii)
    }
    line++
    if (newline === -1) break
    start = newline + 1
  }
  const totalLines = line - 1
  const hash = options.hash === true ? hashOf(bytes, version) : undefined
  return finish(collector, resolved, version, {
    totalLines,
    more: collector.lastLine(offset) < totalLines,
    hash,
  })
}

/** The SHA-256 of `bytes`, the content of `version`: remembered, or computed and remembered. */
function hashOf(bytes: Buffer, version: PageFileVersion): string {
  const known = smallFileHashes.get(version)
  if (known !== undefined) return known
  const hash = sha256().update(bytes).digest("hex")
  smallFileHashes.set(version, hash)
  return hash
}

async function readPage(handle: FileHandle, options: ReadLinesOptions): Promise<ReadLinesResult> {
  const { signal } = options
  signal?.throwIfAborted()
  const resolved = resolveOptions(options)
  const stats = await handle.stat()
  const collector = new PageCollector(resolved)
  const head = Buffer.alloc(4)
  const { bytesRead: headBytes } = await handle.read(head, 0, 4, 0)
  const bom = detectBom(head.subarray(0, headBytes))
  const wantHash = options.hash === true

  if (bom && bom.encoding !== "utf-8") {
    const hasher = wantHash ? sha256() : undefined
    const total = await scanDecoded(handle, bom.encoding, resolved.offset, collector, hasher, signal)
    const more = collector.lastLine(resolved.offset) < total
    return finish(collector, resolved, stats, { totalLines: total, more, hash: hasher?.digest("hex") })
  }

  const index = await cachedIndex(stats, options.savedIndexes)
  if (index && (!wantHash || index.hash !== undefined)) {
    const checkpoint = await seek(handle, index, stats.size, resolved.offset, signal)
    const outcome = await scan(handle, {
      startByte: checkpoint.byte,
      startLine: checkpoint.line,
      offset: resolved.offset,
      collector,
      untilEnd: false,
      signal,
    })
    const more = outcome.more ?? collector.lastLine(resolved.offset) < index.totalLines
    return finish(collector, resolved, stats, {
      totalLines: index.totalLines,
      more,
      ...(wantHash ? { hash: index.hash } : {}),
    })
  }

  const untilEnd = options.countTotal !== false || wantHash
  const hasher = wantHash ? sha256() : undefined
  const building = untilEnd && stats.size >= lineIndexCache.minBytes ? lineIndexCache.builder() : undefined
  const outcome = await scan(handle, {
    startByte: 0,
    startLine: 1,
    offset: resolved.offset,
    collector,
    untilEnd,
    signal,
    ...(hasher ? { hasher } : {}),
    ...(building ? { index: building } : {}),
  })
  const hash = hasher?.digest("hex")
  if (outcome.totalLines === undefined)
    return finish(collector, resolved, stats, { more: outcome.more ?? false })
  if (building && outcome.bytes === stats.size) {
    const after = await handle.stat()
    if (sameVersion(stats, after)) {
      const built = building.finish(outcome.totalLines, hash)
      lineIndexCache.set(stats, built)
      await options.savedIndexes?.save(stats, built)
    }
  }
  const more = collector.lastLine(resolved.offset) < outcome.totalLines
  return finish(collector, resolved, stats, {
    totalLines: outcome.totalLines,
    more,
    ...(hash ? { hash } : {}),
  })
}

function finish(
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

/** The line index of this version of the file: in memory, else saved by an earlier process. */
async function cachedIndex(stats: Stats, saved: LineIndexFolder | undefined): Promise<LineIndex | undefined> {
  const index = lineIndexCache.get(stats)
  if (index || !saved) return index
  const loaded = await saved.load(stats)
  if (loaded) lineIndexCache.set(stats, loaded)
  return loaded
}

function sameVersion(a: Stats, b: Stats): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino
}

interface ScanOptions {
  startByte: number
  /** Number of the line that starts at `startByte`. */
  startLine: number
  offset: number
  collector: PageCollector
  /** Scan to the end of the file even after the page is complete (to count, hash and index). */
  untilEnd: boolean
  hasher?: Hash
  index?: IndexBuilder
  signal: AbortSignal | undefined
}

interface ScanOutcome {
  /** Lines in the file, when the scan reached the end. */
  totalLines?: number
  /** Whether anything follows the page, when the scan stopped early. */
  more?: boolean
  /** Bytes scanned. */
  bytes: number
}

/**
 * The byte-level scanner. Outside the page it counts line breaks in bulk (`NewlineCounter`, 64 KiB blocks,
 * one index checkpoint per block at most); it walks line by line only across the block where the page
 * starts and through the page itself, handing the page's lines to the collector as bytes (kept up to the
 * collector's cap). Reports where it stopped.
 */
async function scan(handle: FileHandle, options: ScanOptions): Promise<ScanOutcome> {
  const { collector, offset, hasher, index, signal } = options
  const counter = takeCounter()
  // A scan to the end reads the next chunk while this one is counted (and hashed).
  const reader = new ChunkReader(
    handle,
    options.startByte,
    options.untilEnd ? counter.buffers : counter.buffers.slice(0, 1),
  )
  let position = options.startByte
  /** Number of the line being scanned (the one that starts at `lineStart`). */
  let line = options.startLine
  let lineStart = position
  let collecting = line >= offset && !collector.done
  try {
    for (;;) {
      signal?.throwIfAborted()
      const view = await reader.next()
      if (!view) break
      const end = view.length
      hasher?.update(view)
      let at = 0
      while (at < end) {
        if (!collecting) {
          // Before the page (stop at its first line) or after it (count to the end).
          const wanted = collector.done ? Number.POSITIVE_INFINITY : offset - line
          const block = Math.min(end, at + COUNT_BLOCK_BYTES)
          const breaks = counter.count(view, at, block)
          if (breaks < wanted) {
            if (breaks > 0) {
              if (index?.due(line + breaks, position + block)) {
                const first = view.indexOf(LF, at)
                index.mark(line + 1, position + first + 1)
              }
              line += breaks
              lineStart = position + view.lastIndexOf(LF, block - 1) + 1
            }
            at = block
            continue
          }
          // The page starts in this block: walk to its first line.
          for (let k = 0; k < wanted; k++) {
            const newline = view.indexOf(LF, at)
            line++
            lineStart = position + newline + 1
            index?.passLine(line, lineStart)
            at = newline + 1
          }
          collecting = !collector.done
          continue
        }
        const newline = view.indexOf(LF, at)
        if (newline === -1) {
          collector.append(view, at, end)
          break
        }
        collector.endLine(view, at, newline, lineStart === 0)
        line++
        lineStart = position + newline + 1
        index?.passLine(line, lineStart)
        at = newline + 1
        if (collector.done) {
          collecting = false
          if (!options.untilEnd) {
            const more = at < end || (await hasByteAt(handle, position + end))
            return { more, bytes: position + at - options.startByte }
          }
        }
      }
      position += end
    }
  } finally {
    await reader.settle()
    giveCounter(counter)
  }
  if (position > lineStart) {
    // The last line has no newline after it.
    if (collecting) collector.endLine(EMPTY, 0, 0, lineStart === 0)
    line++
  }
  return { totalLines: line - 1, bytes: position - options.startByte }
}

async function hasByteAt(handle: FileHandle, position: number): Promise<boolean> {
  const probe = Buffer.alloc(1)
  const { bytesRead } = await handle.read(probe, 0, 1, position)
  return bytesRead > 0
}

/**
 * The slow path for UTF-16 files: decodes the stream (TextDecoder keeps characters split across chunks)
 * and splits the text on LF. Returns the number of lines.
 */
async function scanDecoded(
  handle: FileHandle,
  encoding: "utf-16le" | "utf-16be",
  offset: number,
  collector: PageCollector,
  hasher: Hash | undefined,
  signal: AbortSignal | undefined,
): Promise<number> {
  // ignoreBOM: true keeps U+FEFF in the text; the collector drops it from line 1.
  const decoder = new TextDecoder(encoding, { ignoreBOM: true })
  const counter = takeCounter()
  const chunk = counter.buffers[0]!
  let position = 0
  let line = 1
  let pending = ""
  let pendingLength = 0
  const keepChars = collector.capChars
  const take = (text: string) => {
    pendingLength += text.length
    if (line >= offset && !collector.done && pending.length < keepChars)
      pending += text.slice(0, keepChars - pending.length)
  }
  const endLine = () => {
    if (line >= offset && !collector.done)
      collector.addText(pending, pendingLength > pending.length, line === 1)
    pending = ""
    pendingLength = 0
    line++
  }
  try {
    for (;;) {
      signal?.throwIfAborted()
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position)
      const view = chunk.subarray(0, bytesRead)
      hasher?.update(view)
      const text = decoder.decode(view, { stream: bytesRead > 0 })
      let at = 0
      for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", at)) {
        take(text.slice(at, newline))
        endLine()
        at = newline + 1
      }
      take(text.slice(at))
      if (bytesRead === 0) break
      position += bytesRead
    }
  } finally {
    giveCounter(counter)
  }
  if (pendingLength > 0) endLine()
  return line - 1
}

/** Forgets every cached line index (for benchmarks and tests that need a cold start). */
export function clearLineIndexCache(): void {
  lineIndexCache.clear()
}
