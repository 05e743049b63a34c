import type { Direction, Limits } from "./limits.ts"
import { countNewlines } from "./newlines.ts"
import { findSignals, type Signal } from "./signals.ts"
import { utf8Prefix, utf8Suffix } from "./utf8.ts"

export interface CutOptions extends Limits {
  readonly direction: Direction
}

export type Cut =
  | { readonly truncated: false }
  | {
      readonly truncated: true
      /** What the model sees: whole lines, or the start (head) / end (tail) of a single over-long line. */
      readonly preview: string
      /** How much was left out, in `unit`: bytes when the byte limit stopped the preview, else lines. */
      readonly removed: number
      readonly unit: "lines" | "bytes"
      readonly totalLines: number
      readonly totalBytes: number
      /** Whole lines in the preview; a line kept only in part is not counted. */
      readonly keptLines: number
      /** 1-based lines not (fully) shown: `read offset=firstCutLine` continues where a head preview stops. */
      readonly firstCutLine: number
      readonly lastCutLine: number
      /** Error and summary lines from the part not shown, in file order. */
      readonly signals: Signal[]
    }

/**
 * Decides what of `text` the model sees, following opencode's rules so limits mean the same thing:
 * lines are split on "\n", a line costs its UTF-8 length plus one for each newline between kept lines,
 * and lines are kept from the start (head) or the end (tail) until either limit would be passed.
 * Unlike opencode, a first line that alone exceeds the byte limit is kept in part, cut between code
 * points, instead of leaving an empty preview.
 *
 * The text may be hundreds of megabytes, so nothing here splits or copies it: lines are found with
 * indexOf, only kept lines are measured, and the rest is scanned once for signals.
 */
export function cut(full: string, options: CutOptions): Cut {
  const { maxLines, maxBytes, direction } = options
  const totalBytes = Buffer.byteLength(full)
  // A final newline ends the last line; it does not start an empty one (opencode counts one more line
  // and reports "...1 lines truncated..." for exactly maxLines lines). The slice does not copy.
  const text = full.endsWith("\n") ? full.slice(0, -1) : full
  const totalLines = countNewlines(text) + 1
  if (totalLines <= maxLines && totalBytes <= maxBytes) return { truncated: false }
  const kept = direction === "head" ? keepHead(text, maxLines, maxBytes) : keepTail(text, maxLines, maxBytes)
  const preview = direction === "head" ? text.slice(0, kept.edge) : text.slice(kept.edge)
  const unit = kept.hitBytes ? "bytes" : "lines"
  const removed = kept.hitBytes ? totalBytes - kept.bytes : totalLines - kept.lines
  const rest = direction === "head" ? cutAfter(text, kept, totalLines) : cutBefore(text, kept, totalLines)
  return { truncated: true, preview, removed, unit, totalLines, totalBytes, keptLines: kept.lines, ...rest }
}

interface CutRegion {
  readonly firstCutLine: number
  readonly lastCutLine: number
  readonly signals: Signal[]
}

/**
 * Head: everything after the preview is cut. A partly kept first line counts as cut, so reading from
 * line 1 shows all of it, but it is not scanned for signals: part of it is already on screen.
 */
function cutAfter(text: string, kept: Kept, totalLines: number): CutRegion {
  const scanFrom = kept.partial ? lineAfter(text, 0) : kept.edge + 1
  const firstLine = kept.partial ? 2 : kept.lines + 1
  const signals = scanFrom === -1 ? [] : findSignals(text, { start: scanFrom, end: text.length, firstLine })
  return { firstCutLine: kept.lines + 1, lastCutLine: totalLines, signals }
}

/** Tail: everything before the preview is cut, including a partly kept last line. */
function cutBefore(text: string, kept: Kept, totalLines: number): CutRegion {
  const previewLine = kept.partial ? lineStartAt(text, text.length) : kept.edge
  const signals = previewLine === 0 ? [] : findSignals(text, { start: 0, end: previewLine - 1, firstLine: 1 })
  return { firstCutLine: 1, lastCutLine: totalLines - kept.lines, signals }
}

interface Kept {
  /** Whole lines kept. */
  readonly lines: number
  readonly bytes: number
  /** Index where the preview ends (head) or starts (tail). */
  readonly edge: number
  readonly hitBytes: boolean
  /** The preview is part of one line that alone was over the byte limit. */
  readonly partial: boolean
}

function keepHead(text: string, maxLines: number, maxBytes: number): Kept {
  let lines = 0
  let bytes = 0
  let start = 0
  let edge = 0
  while (lines < maxLines && start <= text.length) {
    const newline = text.indexOf("\n", start)
    const end = newline === -1 ? text.length : newline
    const budget = maxBytes - bytes - (lines > 0 ? 1 : 0)
    const size = measure(text, start, end, budget)
    if (size === -1) {
      if (lines > 0) return { lines, bytes, edge, hitBytes: true, partial: false }
      const part = utf8Prefix(text, start, end, maxBytes)
      return { lines: 0, bytes: part.bytes, edge: part.index, hitBytes: true, partial: true }
    }
    bytes += (lines > 0 ? 1 : 0) + size
    lines++
    edge = end
    start = end + 1
  }
  return { lines, bytes, edge, hitBytes: false, partial: false }
}

function keepTail(text: string, maxLines: number, maxBytes: number): Kept {
  let lines = 0
  let bytes = 0
  let end = text.length
  let edge = text.length
  while (lines < maxLines && end >= 0) {
    const start = lineStartAt(text, end)
    const budget = maxBytes - bytes - (lines > 0 ? 1 : 0)
    const size = measure(text, start, end, budget)
    if (size === -1) {
      if (lines > 0) return { lines, bytes, edge, hitBytes: true, partial: false }
      const part = utf8Suffix(text, start, end, maxBytes)
      return { lines: 0, bytes: part.bytes, edge: part.index, hitBytes: true, partial: true }
    }
    bytes += (lines > 0 ? 1 : 0) + size
    lines++
    edge = start
    end = start - 1
  }
  return { lines, bytes, edge, hitBytes: false, partial: false }
}

/**
 * UTF-8 size of `text[start, end)`, or -1 if over `budget`. UTF-8 is never shorter than the UTF-16 length,
 * so a line longer than the budget in units is rejected without measuring it.
 */
function measure(text: string, start: number, end: number, budget: number): number {
  if (end - start > budget) return -1
  const size = Buffer.byteLength(text.slice(start, end))
  return size > budget ? -1 : size
}

/** Start of the line that ends at `end` (a "\n" or the end of the text). */
function lineStartAt(text: string, end: number): number {
  return end === 0 ? 0 : text.lastIndexOf("\n", end - 1) + 1
}

/** Start of the line after the one containing `index`, or -1 if that is the last line. */
function lineAfter(text: string, index: number): number {
  const newline = text.indexOf("\n", index)
  return newline === -1 ? -1 : newline + 1
}
