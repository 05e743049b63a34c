// The byte-level line scanner the streaming reads share: counts line breaks in bulk outside the page and
// hands the page's lines to the collector, optionally hashing and indexing the file on the way.

import type { FileHandle } from "node:fs/promises"
import type { Sha256 } from "../util/sha256.ts"
import { ChunkReader, giveCounter, takeCounter } from "./chunk-reader.ts"
import type { IndexBuilder } from "./line-index.ts"
import type { PageCollector } from "./page-collector.ts"

/** Line breaks are counted this many bytes at a time (the granularity of index checkpoints in bulk). */
const COUNT_BLOCK_BYTES = 1 << 16
const LF = 0x0a
const EMPTY = Buffer.alloc(0)

export interface ScanOptions {
  startByte: number
  /** Number of the line that starts at `startByte`. */
  startLine: number
  offset: number
  collector: PageCollector
  /** Scan to the end of the file even after the page is complete (to count, hash and index). */
  untilEnd: boolean
  hasher?: Sha256
  index?: IndexBuilder
  signal: AbortSignal | undefined
}

export interface ScanOutcome {
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
export async function scanLines(handle: FileHandle, options: ScanOptions): Promise<ScanOutcome> {
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
