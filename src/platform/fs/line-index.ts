import type { Stats } from "node:fs"

/** A checkpoint is kept every this many lines... */
const STRIDE_LINES = 10_000
/** ...or every this many bytes, whichever comes first (so files of long lines are indexed too). */
const STRIDE_BYTES = 1 << 20
/** Files smaller than this are rescanned rather than indexed. */
const MIN_BYTES = 1 << 20
/** Files whose index is kept; the least recently used is dropped first. */
const MAX_FILES = 32

export interface Checkpoint {
  /** Line number (1-based)... */
  readonly line: number
  /** ...and the byte offset where that line starts. */
  readonly byte: number
}

/** A sparse map from line numbers to byte offsets for one version of one file. */
export interface LineIndex {
  readonly totalLines: number
  /** SHA-256 of the file, when the scan that built the index hashed it. */
  readonly hash: string | undefined
  /** The checkpoint with the largest line number not after `line`. */
  checkpointBefore(line: number): Checkpoint
  /** The checkpoint with the smallest line number not before `line`, if any. */
  checkpointAfter(line: number): Checkpoint | undefined
  /** The checkpoints themselves (to save the index). */
  readonly data: LineIndexData
}

interface Entry {
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly index: LineIndex
}

/**
 * Line indexes of recently scanned large files, keyed by device and inode and valid only while the file's
 * size, mtime and ctime are unchanged (any write changes the ctime), so a stale index is never used.
 */
export class LineIndexCache {
  readonly minBytes: number
  readonly #maxFiles: number
  readonly #entries = new Map<string, Entry>()

  constructor(options: { minBytes?: number; maxFiles?: number } = {}) {
    this.minBytes = options.minBytes ?? MIN_BYTES
    this.#maxFiles = options.maxFiles ?? MAX_FILES
  }

  get(stats: Stats): LineIndex | undefined {
    const key = keyOf(stats)
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (entry.size !== stats.size || entry.mtimeMs !== stats.mtimeMs || entry.ctimeMs !== stats.ctimeMs) {
      this.#entries.delete(key)
      return undefined
    }
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.index
  }

  set(stats: Stats, index: LineIndex): void {
    const key = keyOf(stats)
    this.#entries.delete(key)
    this.#entries.set(key, { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, index })
    while (this.#entries.size > this.#maxFiles) {
      const oldest = this.#entries.keys().next().value
      if (oldest === undefined) break
      this.#entries.delete(oldest)
    }
  }

  clear(): void {
    this.#entries.clear()
  }

  get size(): number {
    return this.#entries.size
  }

  /** Collects checkpoints during a scan from the start of the file; `finish` makes the index. */
  builder(): IndexBuilder {
    return new IndexBuilder()
  }
}

export class IndexBuilder {
  readonly #lines: number[] = [1]
  readonly #bytes: number[] = [0]
  #nextLine = 1 + STRIDE_LINES
  #nextByte = STRIDE_BYTES

  /** Line `line` starts at byte `byte`; called for every line, in order (or see `due`). */
  passLine(line: number, byte: number): void {
    if (line < this.#nextLine && byte < this.#nextByte) return
    this.mark(line, byte)
  }

  /**
   * Whether a checkpoint falls due by line `line` or byte `byte`. A scan that counts lines in bulk asks
   * this per block and, when it does, `mark`s the first line of the block instead of passing every line.
   */
  due(line: number, byte: number): boolean {
    return line >= this.#nextLine || byte >= this.#nextByte
  }

  /** Line `line` starts at byte `byte`: keep it as a checkpoint (lines must come in order). */
  mark(line: number, byte: number): void {
    if (line <= this.#lines[this.#lines.length - 1]!) return
    this.#lines.push(line)
    this.#bytes.push(byte)
    this.#nextLine = line + STRIDE_LINES
    this.#nextByte = byte + STRIDE_BYTES
  }

  finish(totalLines: number, hash: string | undefined): LineIndex {
    return lineIndexOf({ totalLines, hash, lines: this.#lines, bytes: this.#bytes })
  }
}

/** A line index's whole content: what is saved to disk and read back. */
export interface LineIndexData {
  readonly totalLines: number
  readonly hash: string | undefined
  /** Checkpoint line numbers, ascending, starting with line 1... */
  readonly lines: readonly number[]
  /** ...and the byte offsets where those lines start. */
  readonly bytes: readonly number[]
}

/** The index over checkpoints (`data.lines[0]` is line 1 at byte 0). */
export function lineIndexOf(data: LineIndexData): LineIndex {
  const { lines, bytes } = data
  /** Index of the last checkpoint whose line is not after `line` (0 when all are after it). */
  const floor = (line: number) => {
    let low = 0
    let high = lines.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (lines[middle]! <= line) low = middle
      else high = middle - 1
    }
    return low
  }
  return {
    totalLines: data.totalLines,
    hash: data.hash,
    data,
    checkpointBefore(line: number): Checkpoint {
      const at = floor(line)
      return { line: lines[at]!, byte: bytes[at]! }
    },
    checkpointAfter(line: number): Checkpoint | undefined {
      const below = floor(line)
      const at = lines[below]! >= line ? below : below + 1
      return at < lines.length ? { line: lines[at]!, byte: bytes[at]! } : undefined
    },
  }
}

function keyOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`
}

/** The process-wide cache `readLines`, `countLines` and `readLastLines` use. */
export const lineIndexCache = new LineIndexCache()
