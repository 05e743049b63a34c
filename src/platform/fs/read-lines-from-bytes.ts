// The first speed of the read path: a small file already in memory (read whole, in one read), paged
// synchronously.
import * as nodeBuffer from "node:buffer"
import { createSha256 } from "../util/sha256.ts"
import { PageCollector } from "./page-collector.ts"
import {
  finishPage,
  type PageFileVersion,
  type ReadLinesOptions,
  type ReadLinesResult,
  resolveOptions,
} from "./read-lines-page.ts"
import { detectBom } from "./text.ts"
import { smallFileHashes } from "./version-cache.ts"

/** `buffer.isAscii` (Node 18.15+); a runtime without it pays a byte count per line instead. */
const isAscii: (bytes: Buffer) => boolean =
  (nodeBuffer as { isAscii?: (bytes: Buffer) => boolean }).isAscii ?? (() => false)

/**
 * `readLines` for a file already in memory (a small file read whole): the same page, total and hash,
 * computed synchronously from `bytes`, with `version` (the file's stat) reported as its version, and
 * `options.readAt` the time the bytes were read (a hash is remembered only for a version settled by then).
 * Reading a small file whole and paging it here costs one read instead of the open/stat/read/close
 * round trips of the streaming reader, each a hop through the thread pool.
 */
export function readLinesFromBytes(
  bytes: Buffer,
  version: PageFileVersion,
  options: Omit<ReadLinesOptions, "savedIndexes" | "signal"> & { readonly readAt?: number | undefined } = {},
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
  const hash = options.hash === true ? hashOf(bytes, version, options.readAt ?? Date.now()) : undefined
  return finishPage(collector, resolved, version, {
    totalLines,
    more: collector.lastLine(offset) < totalLines,
    hash,
  })
}

/**
 * The SHA-256 of `bytes`, the content of `version` read at `readAt`: remembered, or computed and
 * remembered.
 */
function hashOf(bytes: Buffer, version: PageFileVersion, readAt: number): string {
  const known = smallFileHashes.get(version)
  if (known !== undefined) return known
  const hash = createSha256().update(bytes).digest("hex")
  smallFileHashes.set(version, hash, "", readAt)
  return hash
}
