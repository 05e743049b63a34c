// The third speed of the read path: a file with no known line index is scanned from its first byte,
// counting line breaks at `wc -l` speed; a scan that reaches the end of a large file leaves its line
// index (and hash) behind, so the next page of the same version seeks instead.
import type { Stats } from "node:fs"
import { createSha256 } from "../util/sha256.ts"
import { lineIndexCache } from "./line-index.ts"
import type { LineIndexFolder } from "./line-index-file.ts"
import { finishPage, type ReadLinesResult, type StreamedPage } from "./read-lines-page.ts"
import { scanLines } from "./scan-lines.ts"

/**
 * The page, scanned for from the start. Unless `countTotal` is false (and no hash is asked for), the scan
 * goes on to the end to count (and hash) the file; a file of 1 MiB or more then gets its line index
 * stored in memory and in `savedIndexes`, provided it did not change while it was scanned.
 */
export async function readPageByScan(
  page: StreamedPage,
  { countTotal, savedIndexes }: { countTotal: boolean; savedIndexes: LineIndexFolder | undefined },
): Promise<ReadLinesResult> {
  const { handle, stats, options, collector, wantHash, signal } = page
  const untilEnd = countTotal || wantHash
  const hasher = wantHash ? createSha256() : undefined
  const building = untilEnd && stats.size >= lineIndexCache.minBytes ? lineIndexCache.builder() : undefined
  const outcome = await scanLines(handle, {
    startByte: 0,
    startLine: 1,
    offset: options.offset,
    collector,
    untilEnd,
    signal,
    ...(hasher ? { hasher } : {}),
    ...(building ? { index: building } : {}),
  })
  const hash = hasher?.digest("hex")
  if (outcome.totalLines === undefined)
    return finishPage(collector, options, stats, { more: outcome.more ?? false })
  if (building && outcome.bytes === stats.size) {
    const after = await handle.stat()
    if (sameVersion(stats, after)) {
      const built = building.finish(outcome.totalLines, hash)
      lineIndexCache.set(stats, built)
      await savedIndexes?.save(stats, built)
    }
  }
  return finishPage(collector, options, stats, {
    totalLines: outcome.totalLines,
    more: collector.lastLine(options.offset) < outcome.totalLines,
    ...(hash ? { hash } : {}),
  })
}

function sameVersion(a: Stats, b: Stats): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino
}
