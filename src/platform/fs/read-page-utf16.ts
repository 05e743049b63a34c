// The slow path of the read path: UTF-16 files (with their BOM) have no byte-level line breaks to count,
// so they are decoded as they stream and never indexed.
import { createSha256, type Sha256 } from "../util/sha256.ts"
import { CHUNK_BYTES, giveCounter, takeCounter } from "./chunk-reader.ts"
import { finishPage, type ReadLinesResult, type StreamedPage } from "./read-lines-page.ts"
import type { BomEncoding } from "./text.ts"

export type Utf16Encoding = Exclude<BomEncoding, "utf-8">

/** The page of a UTF-16 file, with its line count (and hash), from one decoded pass over the whole file. */
export async function readPageUtf16(page: StreamedPage, encoding: Utf16Encoding): Promise<ReadLinesResult> {
  const { options, collector } = page
  const hasher = page.wantHash ? createSha256() : undefined
  const total = await scanDecoded(page, encoding, hasher)
  const more = collector.lastLine(options.offset) < total
  return finishPage(collector, options, page.stats, { totalLines: total, more, hash: hasher?.digest("hex") })
}

/**
 * Decodes the stream (TextDecoder keeps characters split across chunks) and splits the text on LF,
 * handing the page's lines to the collector. Returns the number of lines.
 */
async function scanDecoded(
  page: StreamedPage,
  encoding: Utf16Encoding,
  hasher: Sha256 | undefined,
): Promise<number> {
  const { handle, collector, signal } = page
  const { offset } = page.options
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
