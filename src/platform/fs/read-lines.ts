// The read path's entry: a page of lines from a text file of any size, by the fastest way that applies.
// The ways, one module each:
// - read-lines-from-bytes.ts: a small file already in memory (read whole), paged synchronously;
// - read-page-by-index.ts: a large file whose line index is known, seeking straight to the page;
// - read-page-by-scan.ts: a first scan from the start at `wc -l` speed, which leaves the line index behind;
// - read-page-utf16.ts: UTF-16 files, decoded as they stream;
// - read-last-lines.ts: the last lines of a file, read backwards like `tail -n`.
// They share read-lines-page.ts (options, result), scan-lines.ts (the byte scanner), page-collector.ts.
import { type FileHandle, open } from "node:fs/promises"
import { lineIndexCache } from "./line-index.ts"
import { PageCollector } from "./page-collector.ts"
import { type ReadLinesOptions, type ReadLinesResult, resolveOptions } from "./read-lines-page.ts"
import { cachedLineIndex, readPageByIndex } from "./read-page-by-index.ts"
import { readPageByScan } from "./read-page-by-scan.ts"
import { readPageUtf16 } from "./read-page-utf16.ts"
import { detectBom } from "./text.ts"

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

/** `readLines` on a file already open: picks the way to read the page (UTF-16, by index, by scan). */
export async function readPage(handle: FileHandle, options: ReadLinesOptions): Promise<ReadLinesResult> {
  const { signal } = options
  signal?.throwIfAborted()
  const resolved = resolveOptions(options)
  const stats = await handle.stat()
  const collector = new PageCollector(resolved)
  const head = Buffer.alloc(4)
  const { bytesRead: headBytes } = await handle.read(head, 0, 4, 0)
  const bom = detectBom(head.subarray(0, headBytes))
  const wantHash = options.hash === true
  const page = { handle, stats, options: resolved, collector, wantHash, signal }

  if (bom && bom.encoding !== "utf-8") return readPageUtf16(page, bom.encoding)
  const index = await cachedLineIndex(stats, options.savedIndexes)
  if (index && (!wantHash || index.hash !== undefined)) return readPageByIndex(page, index)
  return readPageByScan(page, {
    countTotal: options.countTotal !== false,
    savedIndexes: options.savedIndexes,
  })
}

/** Forgets every cached line index (for benchmarks and tests that need a cold start). */
export function clearLineIndexCache(): void {
  lineIndexCache.clear()
}
