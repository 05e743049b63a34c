/** What a ring holds before it has to grow: most commands print less than this. */
const INITIAL_BYTES = 16 * 1024

/**
 * A ring of the latest bytes, at most `capacity` of them. Holding a command's tail as bytes rather than
 * as strings means nothing in it is JavaScript heap that every young-generation GC has to copy, which is
 * what lets the V8 heap stay small while gigabytes stream through. It starts small and grows to its
 * capacity only for output that needs it, so a short command allocates almost nothing.
 */
export class ByteRing {
  readonly capacity: number
  #buffer: Buffer
  /** Absolute offsets (bytes since the first write) of the oldest held byte and of the end. */
  #start = 0
  #end = 0

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity <= 0)
      throw new RangeError(`Bad ring capacity ${capacity}`)
    this.capacity = capacity
    this.#buffer = Buffer.allocUnsafe(Math.min(capacity, INITIAL_BYTES))
  }

  /** Absolute offset of the oldest byte held. */
  get start(): number {
    return this.#start
  }

  /** Absolute offset just past the newest byte: the number of bytes ever written. */
  get end(): number {
    return this.#end
  }

  get length(): number {
    return this.#end - this.#start
  }

  /**
   * Appends `chunk`. Bytes that no longer fit are handed to `onEvict` first, oldest first, as views that
   * are valid only during the call.
   */
  write(chunk: Buffer, onEvict?: (piece: Buffer) => void): void {
    let data = chunk
    const needed = this.length + data.length
    if (needed > this.#buffer.length && this.#buffer.length < this.capacity) this.#grow(needed)
    if (data.length >= this.capacity) {
      for (const piece of this.#pieces(this.#start, this.#end)) onEvict?.(piece)
      const drop = data.length - this.capacity
      if (drop > 0) onEvict?.(data.subarray(0, drop))
      this.#start = this.#end + data.length
      this.#end = this.#start
      this.#start -= this.capacity
      data = data.subarray(drop)
      this.#copyIn(data, this.#start)
      return
    }
    const overflow = this.length + data.length - this.capacity
    if (overflow > 0) {
      for (const piece of this.#pieces(this.#start, this.#start + overflow)) onEvict?.(piece)
      this.#start += overflow
    }
    this.#copyIn(data, this.#end)
    this.#end += data.length
  }

  /** A copy of the bytes from absolute offset `from` (clamped to what is held) to the end. */
  read(from: number = this.#start): Buffer {
    const start = Math.min(Math.max(from, this.#start), this.#end)
    const pieces = this.#pieces(start, this.#end)
    return pieces.length === 1 ? Buffer.from(pieces[0]!) : Buffer.concat(pieces, this.#end - start)
  }

  /** Moves the held bytes into a larger buffer (at most `capacity`), each at its offset modulo the new size. */
  #grow(needed: number): void {
    const size = Math.min(this.capacity, Math.max(2 * this.#buffer.length, needed))
    const pieces = this.#pieces(this.#start, this.#end)
    this.#buffer = Buffer.allocUnsafe(size)
    let at = this.#start
    for (const piece of pieces) {
      this.#copyIn(piece, at)
      at += piece.length
    }
  }

  #copyIn(data: Buffer, at: number): void {
    const size = this.#buffer.length
    const offset = at % size
    const first = Math.min(data.length, size - offset)
    data.copy(this.#buffer, offset, 0, first)
    if (first < data.length) data.copy(this.#buffer, 0, first)
  }

  /** Views of [from, to) in the buffer: one piece, or two where it wraps. */
  #pieces(from: number, to: number): Buffer[] {
    if (to <= from) return []
    const size = this.#buffer.length
    const offset = from % size
    const length = to - from
    if (offset + length <= size) return [this.#buffer.subarray(offset, offset + length)]
    return [this.#buffer.subarray(offset), this.#buffer.subarray(0, length - (size - offset))]
  }
}

/** Index of the first byte of `bytes` that starts a UTF-8 character (skips continuation bytes). */
export function charStart(bytes: Buffer): number {
  let i = 0
  while (i < bytes.length && i < 4 && (bytes[i]! & 0xc0) === 0x80) i++
  return i
}

/** Number of "\n" bytes in `bytes`. */
export function countNewlineBytes(bytes: Buffer): number {
  let count = 0
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) count++
  return count
}
