// Searching one file in the fallback: read in large chunks straight into the kernel's memory, look for the
// pattern's literals with SIMD, and run the regex only on lines that hold one. Files are treated as ripgrep
// treats them: a UTF-8 BOM is dropped, UTF-16 (with a BOM) is transcoded, a file with a NUL byte is binary
// and skipped, lines end at `\n`.
import { isAscii } from "node:buffer"
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs"
import type { GrepLine } from "./backend.ts"
import type { CompiledPattern } from "./regex.ts"
import { Kernel, type Needle } from "./simd.ts"

/** Bytes read at once (files up to this size take one read). */
export const CHUNK = 4 * 1024 * 1024
const NEWLINE = 10
/** After this many candidate lines, dense candidates switch to running the regex over the whole chunk. */
const DENSE_AFTER = 64
const DENSE_BYTES = 256

/** Called for each matching line [start, end) (memory offsets, `\n` excluded); false stops the scan. */
type Visit = (start: number, end: number) => boolean

/**
 * The pattern as a regex for each way the searched bytes are decoded: as latin1 when they are all ASCII
 * (cheaper to decode, and `asciiSource` matches the same), else as UTF-8.
 */
interface ByDecoding {
  readonly ascii: RegExp
  readonly unicode: RegExp
}

function byDecoding(pattern: CompiledPattern, flags: string): ByDecoding {
  return { ascii: new RegExp(pattern.asciiSource, flags), unicode: new RegExp(pattern.source, flags) }
}

/** Finds the matching lines of a memory region with the pattern's literals first, then its regex. */
export class LineMatcher {
  readonly #kernel: Kernel
  readonly #needles: Needle[] | undefined
  readonly #literalIsMatch: boolean
  /** Tests one line. */
  readonly #line: ByDecoding
  /** Finds every match in a region of lines (global). */
  readonly #region: ByDecoding

  constructor(kernel: Kernel, pattern: CompiledPattern) {
    this.#kernel = kernel
    kernel.clearNeedles()
    const needles = pattern.literals?.map((literal) => kernel.needle(literal))
    this.#needles = needles?.every((needle) => needle) ? (needles as Needle[]) : undefined
    this.#literalIsMatch = pattern.literalIsMatch && !!this.#needles?.every((needle) => needle.whole)
    this.#line = byDecoding(pattern, pattern.flags)
    this.#region = byDecoding(pattern, `g${pattern.flags}`)
  }

  /** Whether [from, to) may hold a match at all (a literal occurs in it). */
  mayMatch(from: number, to: number): boolean {
    if (!this.#needles) return true
    return this.#needles.some((needle) => this.#kernel.find(needle, from, to) >= 0)
  }

  /** Visits the matching lines of [from, to), a region of whole lines, in order. */
  lines(from: number, to: number, visit: Visit): void {
    const needles = this.#needles
    if (!needles) {
      this.#scanRegex(from, to, visit)
      return
    }
    const kernel = this.#kernel
    const next = needles.map((needle) => kernel.find(needle, from, to))
    let candidates = 0
    for (;;) {
      let at = -1
      for (const position of next) if (position >= 0 && (at < 0 || position < at)) at = position
      if (at < 0) return
      const buffer = kernel.buffer
      let start = at > from ? buffer.lastIndexOf(NEWLINE, at - 1) + 1 : from
      if (start < from) start = from
      let end = buffer.indexOf(NEWLINE, at)
      if (end < 0 || end > to) end = to
      if ((this.#literalIsMatch || this.#test(start, end)) && !visit(start, end)) return
      const resume = end + 1
      if (resume >= to) return
      for (let k = 0; k < next.length; k++) {
        if (next[k]! >= 0 && next[k]! < resume) next[k] = kernel.find(needles[k]!, resume, to)
      }
      if (
        !this.#literalIsMatch &&
        ++candidates >= DENSE_AFTER &&
        (resume - from) / candidates < DENSE_BYTES
      ) {
        this.#scanRegex(resume, to, visit)
        return
      }
    }
  }

  /** Whether the line [start, end) matches. */
  #test(start: number, end: number): boolean {
    const buffer = this.#kernel.buffer
    if (isAscii(buffer.subarray(start, end)))
      return this.#line.ascii.test(buffer.toString("latin1", start, end))
    return this.#line.unicode.test(buffer.toString("utf8", start, end))
  }

  /** Runs the regex over the whole region, mapping matches back to lines. */
  #scanRegex(from: number, to: number, visit: Visit): void {
    const buffer = this.#kernel.buffer
    const ascii = isAscii(buffer.subarray(from, to))
    const text = buffer.toString(ascii ? "latin1" : "utf8", from, to)
    const re = ascii ? this.#region.ascii : this.#region.unicode
    // Line starts in the text and in memory advance together (UTF-8 lengths differ; lines do not).
    let textLine = 0
    let byteLine = from
    let index = 0
    while (index <= text.length) {
      re.lastIndex = index
      const match = re.exec(text)
      if (!match) return
      const at = match.index
      // An empty match after the final newline is not a line.
      if (at === text.length && (text.length === 0 || text.charCodeAt(text.length - 1) === NEWLINE)) return
      const lineStart = at > 0 ? text.lastIndexOf("\n", at - 1) + 1 : 0
      let lineEnd = text.indexOf("\n", at)
      if (lineEnd < 0) lineEnd = text.length
      if (ascii) {
        if (!visit(from + lineStart, from + lineEnd)) return
      } else {
        while (textLine < lineStart) {
          textLine = text.indexOf("\n", textLine) + 1
          byteLine = buffer.indexOf(NEWLINE, byteLine) + 1
        }
        let byteEnd = buffer.indexOf(NEWLINE, byteLine)
        if (byteEnd < 0 || byteEnd > to) byteEnd = to
        if (!visit(byteLine, byteEnd)) return
      }
      index = lineEnd + 1
    }
  }
}

/** A file with matches: how many matching lines, and when it was last modified. */
export interface FileCount {
  readonly count: number
  readonly mtimeMs: number
}

export interface CollectOptions {
  /** Matching lines to keep. */
  readonly quota: number
  readonly before: number
  readonly after: number
}

/** Whole lines [from, to) of the kernel's memory; [floor, from) holds lines kept from before, for context. */
interface Region {
  readonly from: number
  readonly to: number
  readonly floor: number
}

/** Receives each region of a file; false stops the read. */
type OnRegion = (region: Region) => boolean

/** Searches files one at a time with one kernel (one per thread). */
export class FileSearcher {
  readonly #kernel: Kernel
  readonly #matcher: LineMatcher

  constructor(pattern: CompiledPattern, kernel = new Kernel(CHUNK)) {
    this.#kernel = kernel
    this.#matcher = new LineMatcher(kernel, pattern)
  }

  /**
   * Matching lines of `path` (at most `maxCount`); undefined when none, binary or unreadable. `stopped` is
   * asked between chunks of a big file.
   */
  count(path: string, maxCount = Infinity, stopped?: () => boolean): FileCount | undefined {
    let count = 0
    const mtimeMs = this.#read(path, 0, ({ from, to }) => {
      this.#matcher.lines(from, to, () => ++count < maxCount)
      return count < maxCount && !stopped?.()
    })
    if (mtimeMs === undefined || count === 0) return undefined
    return { count, mtimeMs }
  }

  /**
   * The first `quota` matching lines of `path` with their context: a line within `before` lines before a
   * kept match or within `after` lines after one is shown too (as context when it is not a kept match).
   * Undefined when the file is binary or unreadable.
   */
  collect(path: string, options: CollectOptions): GrepLine[] | undefined {
    const { quota, before, after } = options
    const kernel = this.#kernel
    const lines: GrepLine[] = []
    const text = (start: number, end: number) => {
      const stop = end > start && kernel.bytes[end - 1] === 13 ? end - 1 : end
      return kernel.buffer.toString("utf8", start, stop)
    }
    let kept = 0
    let lastKept = -Infinity
    let emitted = 0
    let regionLine = 1
    let done = false
    const mtimeMs = this.#read(path, before, ({ from, to, floor }) => {
      let counted = from
      let countedLine = regionLine
      const lineOf = (position: number) => {
        countedLine += kernel.count(NEWLINE, counted, position)
        counted = position
        return countedLine
      }
      // The next line that could be after-context, and where it starts.
      let cursor = from
      let cursorLine = regionLine
      const flushAfter = (limit: number) => {
        while (cursor < limit && cursorLine <= lastKept + after) {
          let end = kernel.buffer.indexOf(NEWLINE, cursor)
          if (end < 0 || end > limit) end = limit
          if (cursorLine > emitted) {
            lines.push({ line: cursorLine, text: text(cursor, end), match: false })
            emitted = cursorLine
          }
          cursorLine++
          cursor = end + 1
        }
      }
      this.#matcher.lines(from, to, (start, end) => {
        const line = lineOf(start)
        flushAfter(start)
        if (kept >= quota) {
          if (line > lastKept + after) {
            done = true
            return false
          }
          if (line > emitted) lines.push({ line, text: text(start, end), match: false })
        } else {
          const context: GrepLine[] = []
          let lineStart = start
          for (
            let number = line - 1;
            number >= Math.max(line - before, emitted + 1) && lineStart > floor;
            number--
          ) {
            const previousEnd = lineStart - 1
            let previousStart = kernel.buffer.lastIndexOf(NEWLINE, previousEnd - 1) + 1
            if (previousStart < floor) previousStart = floor
            context.push({ line: number, text: text(previousStart, previousEnd), match: false })
            lineStart = previousStart
          }
          lines.push(...context.reverse(), { line, text: text(start, end), match: true })
          kept++
          lastKept = line
        }
        emitted = line
        cursor = end + 1
        cursorLine = line + 1
        return true
      })
      if (done) return false
      flushAfter(to)
      regionLine = lineOf(to)
      return kept < quota || regionLine <= lastKept + after
    })
    return mtimeMs === undefined ? undefined : lines
  }

  /**
   * Reads `path` region by region into the kernel's memory and hands each region of whole lines to
   * `onRegion` (false stops). Up to `keepLines` lines before a region stay in memory for context.
   * Returns the file's mtime, or undefined for a binary (NUL byte) or unreadable file.
   */
  #read(path: string, keepLines: number, onRegion: OnRegion): number | undefined {
    let fd: number
    try {
      fd = openSync(path, "r")
    } catch {
      return undefined
    }
    try {
      const kernel = this.#kernel
      const base = kernel.base
      let carry = 0
      let from = base
      let floor = base
      for (let first = true; ; first = false) {
        const room = kernel.capacity - carry
        const n = readSync(fd, kernel.bytes, base + carry, room, null)
        const end = base + carry + n
        const eof = n < room
        if (first) {
          const bytes = kernel.bytes
          const b0 = bytes[base]
          const b1 = bytes[base + 1]
          if (n >= 2 && ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff))) {
            return this.#utf16(fd, path, onRegion)
          }
          if (n >= 3 && b0 === 0xef && b1 === 0xbb && bytes[base + 2] === 0xbf) from = floor = base + 3
          if (eof) {
            // One read held the whole file: look for NUL bytes only when something may match.
            if (!this.#matcher.mayMatch(from, end)) return 0
            if (kernel.buffer.subarray(from, end).indexOf(0) >= 0) return undefined
            onRegion({ from, to: end, floor: from })
            return fstatSync(fd).mtimeMs
          }
        }
        if (kernel.buffer.subarray(base + carry, end).indexOf(0) >= 0) return undefined
        let to = end
        if (!eof) {
          const lastNewline = kernel.buffer.lastIndexOf(NEWLINE, end - 1)
          if (lastNewline < from) {
            // A line longer than the buffer: make room and read on.
            kernel.reserve(kernel.capacity * 2)
            carry = end - base
            continue
          }
          to = lastNewline + 1
        }
        if (!onRegion({ from, to, floor }) || eof) return fstatSync(fd).mtimeMs
        // Carry the partial last line, and up to `keepLines` whole lines before it for context.
        let keepFrom = to
        for (let k = 0; k < keepLines && keepFrom > from; k++) {
          const previous = kernel.buffer.lastIndexOf(NEWLINE, keepFrom - 2)
          keepFrom = previous < from ? from : previous + 1
        }
        if (end - keepFrom > kernel.capacity / 2) keepFrom = to
        kernel.bytes.copyWithin(base, keepFrom, end)
        carry = end - keepFrom
        from = base + (to - keepFrom)
        floor = base
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== undefined) return undefined
      throw error
    } finally {
      closeSync(fd)
    }
  }

  /** A UTF-16 file (with a BOM) is transcoded to UTF-8 and searched whole, as ripgrep does. */
  #utf16(fd: number, path: string, onRegion: OnRegion): number | undefined {
    const raw = readFileSync(path)
    const encoding = raw[0] === 0xff ? "utf-16le" : "utf-16be"
    const utf8 = Buffer.from(new TextDecoder(encoding).decode(raw), "utf8")
    const kernel = this.#kernel
    kernel.reserve(utf8.length)
    kernel.bytes.set(utf8, kernel.base)
    const from = kernel.base
    const to = from + utf8.length
    if (kernel.buffer.subarray(from, to).indexOf(0) >= 0) return undefined
    onRegion({ from, to, floor: from })
    return fstatSync(fd).mtimeMs
  }
}
