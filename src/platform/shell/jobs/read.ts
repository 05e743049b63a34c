import { open } from "node:fs/promises"
import { StringDecoder } from "node:string_decoder"
import { cut } from "../../text/cut.ts"
import type { Limits } from "../../text/limits.ts"
import { countNewlines } from "../../text/newlines.ts"
import type { Bounded } from "../run/format.ts"
import { mergeSignals, SignalScanner } from "../run/scanner.ts"

const READ_CHUNK = 64 * 1024

export interface Region extends Bounded {
  /** Newlines in the region: where the next region's numbering continues. */
  readonly newlines: number
}

/**
 * Bounds the bytes [start, end) of a log file, as a finished command's output is bounded: the tail within
 * the limits, and error/summary lines from the part before it. Memory stays at ~2× the byte limit
 * whatever the region's size: the part before the tail is streamed through the signal scanner.
 * `firstLine` is the number of the line that `start` falls in.
 */
export async function readRegion(options: {
  path: string
  start: number
  end: number
  firstLine: number
  limits: Limits
}): Promise<Region> {
  const { path, start, end, firstLine, limits } = options
  const handle = await open(path, "r")
  try {
    const decoder = new StringDecoder("utf8")
    const tailFrom = Math.max(start, end - 2 * limits.maxBytes)
    const scanner = new SignalScanner(firstLine)
    const buffer = Buffer.allocUnsafe(READ_CHUNK)
    let position = start
    while (position < tailFrom) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(READ_CHUNK, tailFrom - position), position)
      if (bytesRead === 0) break
      scanner.push(decoder.write(buffer.subarray(0, bytesRead)))
      position += bytesRead
    }
    const tail = Buffer.allocUnsafe(end - position)
    let filled = 0
    while (filled < tail.length) {
      const { bytesRead } = await handle.read(tail, filled, tail.length - filled, position + filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    const before = scanner.newlines
    const held = scanner.takePending() + decoder.write(tail.subarray(0, filled)) + decoder.end()
    const newlines = before + countNewlines(held)
    const trimmed = held.endsWith("\n") ? held.slice(0, -1) : held
    const heldLines = held === "" ? 0 : countNewlines(trimmed) + 1
    const result = cut(held, { ...limits, direction: "tail" })
    const totalBytes = end - start
    if (!result.truncated && before === 0) {
      return {
        text: held,
        truncated: false,
        totalLines: heldLines,
        keptLines: heldLines,
        totalBytes,
        signals: [],
        newlines,
        firstLine,
      }
    }
    const kept = result.truncated ? result.keptLines : heldLines
    const later = result.truncated
      ? result.signals.map((signal) => ({ line: signal.line + firstLine - 1 + before, text: signal.text }))
      : []
    return {
      text: result.truncated ? result.preview : held,
      truncated: true,
      outputPath: path,
      totalLines: before + heldLines,
      keptLines: kept,
      totalBytes,
      signals: mergeSignals(scanner.signals(), later),
      newlines,
      firstLine,
    }
  } finally {
    await handle.close()
  }
}
