/** What replaces the rest of a line longer than `maxLineLength` (opencode's wording). */
export function lineCutMarker(maxLineLength: number): string {
  return `... (line truncated to ${maxLineLength} chars)`
}

/**
 * Builds the page: takes each line's bytes (keeping at most a few bytes per allowed character), decodes
 * it whole, drops a trailing CR and the BOM of line 1, cuts and marks long lines, and enforces the limits.
 */
export class PageCollector {
  readonly lines: string[] = []
  cutLines = 0
  truncatedByBytes = false
  done: boolean
  /** Characters worth keeping of a line: enough to know it is longer than allowed. */
  readonly capChars: number
  readonly #limit: number
  readonly #maxLineLength: number
  readonly #maxBytes: number
  /** Bytes worth keeping of a line: a UTF-16 unit takes at most 3 UTF-8 bytes. */
  readonly #capBytes: number
  #bytes = 0
  #parts: Buffer[] = []
  #kept = 0
  #lineBytes = 0

  constructor(options: { limit: number; maxLineLength: number; maxBytes: number }) {
    this.#limit = options.limit
    this.#maxLineLength = options.maxLineLength
    this.#maxBytes = options.maxBytes
    this.capChars = Math.min(options.maxLineLength + 1, options.maxBytes + 1)
    this.#capBytes = Math.min(options.maxLineLength * 3 + 8, options.maxBytes + 8)
    this.done = options.limit === 0
  }

  /** Number of the last collected line, given the page's first line. */
  lastLine(offset: number): number {
    return offset + this.lines.length - 1
  }

  /** Takes bytes `start..end` of `chunk` as the next part of the current line (the chunk is reused later). */
  append(chunk: Buffer, start: number, end: number): void {
    this.#lineBytes += end - start
    const take = Math.min(end - start, this.#capBytes - this.#kept)
    if (take <= 0) return
    this.#parts.push(Buffer.from(chunk.subarray(start, start + take)))
    this.#kept += take
  }

  /**
   * Bytes `start..end` of `chunk` end the current line: decode it (straight from the chunk when the whole
   * line is in it) and add it to the page.
   */
  endLine(chunk: Buffer, start: number, end: number, atFileStart: boolean): void {
    if (this.#parts.length === 0) {
      const take = Math.min(end - start, this.#capBytes)
      this.addText(chunk.toString("utf8", start, start + take), end - start > take, atFileStart)
      return
    }
    this.append(chunk, start, end)
    const bytes = Buffer.concat(this.#parts, this.#kept)
    const capped = this.#lineBytes > this.#kept
    this.#parts = []
    this.#kept = 0
    this.#lineBytes = 0
    this.addText(bytes.toString("utf8"), capped, atFileStart)
  }

  /**
   * Adds a decoded line; `capped` when its end was not kept; `atFileStart` when a BOM may lead it;
   * `ascii` when its characters are known to be ASCII (its UTF-8 size is then its length).
   */
  addText(decoded: string, capped: boolean, atFileStart: boolean, ascii = false): void {
    let text = decoded
    if (!capped && text.endsWith("\r")) text = text.slice(0, -1)
    if (atFileStart && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    let cut = false
    if (capped || text.length > this.#maxLineLength) {
      text = cutChars(text, this.#maxLineLength) + lineCutMarker(this.#maxLineLength)
      cut = true
    }
    const cost = (ascii ? text.length : Buffer.byteLength(text)) + 1
    if (this.#bytes + cost > this.#maxBytes) {
      this.truncatedByBytes = true
      this.done = true
      if (this.lines.length > 0) return
      // A first line over the whole budget is still shown, cut to fit, so the page is never empty.
      text = cutToBytes(text, this.#maxBytes)
      cut = true
    }
    this.lines.push(text)
    this.#bytes += cost
    if (cut) this.cutLines++
    if (this.lines.length >= this.#limit) this.done = true
  }
}

/** The first `max` UTF-16 units of `text`, never splitting a surrogate pair. */
function cutChars(text: string, max: number): string {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}

/** The longest prefix of `text` whose UTF-8 encoding plus a newline fits in `maxBytes`, with a marker. */
function cutToBytes(text: string, maxBytes: number): string {
  let chars = Math.min(text.length, maxBytes)
  for (;;) {
    const candidate = cutChars(text, chars) + lineCutMarker(chars)
    if (Buffer.byteLength(candidate) + 1 <= maxBytes || chars === 0) return candidate
    chars = Math.floor(chars * 0.9)
  }
}
