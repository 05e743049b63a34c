/**
 * Cutting a string to a UTF-8 byte budget without encoding it. A cut must land between code points: a
 * split surrogate pair would be written as U+FFFD and the model would see garbage where the text was.
 */

/** Where a piece of `text` ends (or starts) and how many UTF-8 bytes it holds. */
export interface Span {
  readonly index: number
  readonly bytes: number
}

/** The longest start of `text[start, end)` that fits in `maxBytes`: returns its end index. */
export function utf8Prefix(text: string, start: number, end: number, maxBytes: number): Span {
  let i = start
  let bytes = 0
  while (i < end) {
    const unit = text.charCodeAt(i)
    const pair = isHigh(unit) && i + 1 < end && isLow(text.charCodeAt(i + 1))
    const size = pair ? 4 : unitBytes(unit)
    if (bytes + size > maxBytes) break
    bytes += size
    i += pair ? 2 : 1
  }
  return { index: i, bytes }
}

/** The longest end of `text[start, end)` that fits in `maxBytes`: returns its start index. */
export function utf8Suffix(text: string, start: number, end: number, maxBytes: number): Span {
  let i = end
  let bytes = 0
  while (i > start) {
    const unit = text.charCodeAt(i - 1)
    const pair = isLow(unit) && i - 2 >= start && isHigh(text.charCodeAt(i - 2))
    const size = pair ? 4 : unitBytes(unit)
    if (bytes + size > maxBytes) break
    bytes += size
    i -= pair ? 2 : 1
  }
  return { index: i, bytes }
}

/** Cuts to at most `maxChars` UTF-16 units, backing off one unit rather than splitting a pair. */
export function clipChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  const end = isHigh(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars
  return text.slice(0, end)
}

/** The start of a chunk boundary at or before `index` that does not split a surrogate pair. */
export function safeBoundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index
  return isHigh(text.charCodeAt(index - 1)) && isLow(text.charCodeAt(index)) ? index - 1 : index
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff
}

/** UTF-8 size of a unit that is not part of a pair; a lone surrogate is encoded as U+FFFD (3 bytes). */
function unitBytes(unit: number): number {
  if (unit < 0x80) return 1
  if (unit < 0x800) return 2
  return 3
}
