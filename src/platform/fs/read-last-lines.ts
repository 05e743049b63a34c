// The last lines of a file, as `tail -n` finds them: backwards from the end, at a cost that depends on
// the lines asked for, not on the size of the file.
import { open } from "node:fs/promises"
import type { LineIndexFolder } from "./line-index-file.ts"
import { PageCollector } from "./page-collector.ts"
import { readPage } from "./read-lines.ts"
import { DEFAULT_READ_LIMITS } from "./read-lines-page.ts"
import { cachedLineIndex } from "./read-page-by-index.ts"
import { scanLines } from "./scan-lines.ts"
import { startOfLastLines } from "./start-of-last-lines.ts"
import { detectBom } from "./text.ts"

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
    const start = await startOfLastLines({ handle, end: stats.size, count, signal: options.signal })
    const collector = new PageCollector({
      limit: count,
      maxLineLength: options.maxLineLength ?? DEFAULT_READ_LIMITS.maxLineLength,
      maxBytes: Infinity,
    })
    await scanLines(handle, {
      startByte: start,
      startLine: 1,
      offset: 1,
      collector,
      untilEnd: false,
      signal: options.signal,
    })
    const index = await cachedLineIndex(stats, options.savedIndexes)
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
