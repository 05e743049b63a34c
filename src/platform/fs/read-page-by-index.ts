// The second speed of the read path: a large file whose line index is known (from this process's cache
// or saved by an earlier one) is paged by seeking, so nothing after the page is read.
import type { Stats } from "node:fs"
import type { Checkpoint, LineIndex } from "./line-index.ts"
import { lineIndexCache } from "./line-index.ts"
import type { LineIndexFolder } from "./line-index-file.ts"
import { finishPage, type ReadLinesResult, type StreamedPage } from "./read-lines-page.ts"
import { scanLines } from "./scan-lines.ts"
import { startOfLastLines } from "./start-of-last-lines.ts"

/** The line index of this version of the file: in memory, else saved by an earlier process. */
export async function cachedLineIndex(
  stats: Stats,
  saved: LineIndexFolder | undefined,
): Promise<LineIndex | undefined> {
  const index = lineIndexCache.get(stats)
  if (index || !saved) return index
  const loaded = await saved.load(stats)
  if (loaded) lineIndexCache.set(stats, loaded)
  return loaded
}

/**
 * The page, found through `index` (of this version of the file): scanned from the nearest known line
 * start, stopping as soon as the page is complete; the total (and hash) come from the index.
 */
export async function readPageByIndex(page: StreamedPage, index: LineIndex): Promise<ReadLinesResult> {
  const { handle, options, collector, wantHash, signal } = page
  const checkpoint = await seek(page, index)
  const outcome = await scanLines(handle, {
    startByte: checkpoint.byte,
    startLine: checkpoint.line,
    offset: options.offset,
    collector,
    untilEnd: false,
    signal,
  })
  const more = outcome.more ?? collector.lastLine(options.offset) < index.totalLines
  return finishPage(collector, options, page.stats, {
    totalLines: index.totalLines,
    more,
    ...(wantHash ? { hash: index.hash } : {}),
  })
}

/**
 * Where to start scanning for the page's first line with a line index: the nearest checkpoint before it,
 * or, when a checkpoint after it (or the end of the file) is nearer, the exact start of the line found by
 * scanning backwards from there. Either way at most half a stride of lines is passed over.
 */
async function seek(page: StreamedPage, index: LineIndex): Promise<Checkpoint> {
  const { offset } = page.options
  const before = index.checkpointBefore(offset)
  if (offset > index.totalLines) return before
  const after = index.checkpointAfter(offset) ?? { line: index.totalLines + 1, byte: page.stats.size }
  if (after.line - offset >= offset - before.line) return before
  const byte = await startOfLastLines({
    handle: page.handle,
    end: after.byte,
    count: after.line - offset,
    signal: page.signal,
  })
  return { line: offset, byte }
}
