// Reading a file forward in large chunks, into buffers that live in the newline counter's memory (so
// line breaks are counted where the bytes landed, without a copy).
import type { FileHandle } from "node:fs/promises"
import { NewlineCounter } from "./newline-counter.ts"

/** Bytes read from the file at a time. */
export const CHUNK_BYTES = 1 << 20

/**
 * Counters, each with two chunk buffers in its memory, kept for the next read: repeated page reads then
 * allocate nothing large, and memory does not pile up in buffers waiting for the garbage collector.
 */
const spareCounters: NewlineCounter[] = []
const MAX_SPARE_COUNTERS = 2

export function takeCounter(): NewlineCounter {
  return spareCounters.pop() ?? new NewlineCounter({ chunkBytes: CHUNK_BYTES, buffers: 2 })
}

export function giveCounter(counter: NewlineCounter): void {
  if (spareCounters.length < MAX_SPARE_COUNTERS) spareCounters.push(counter)
}

/**
 * Reads a file forward in chunks the size of its buffers. With two buffers they take turns: the next
 * chunk is read while the caller works on the current one. A returned chunk is valid until the next call.
 */
export class ChunkReader {
  readonly #handle: FileHandle
  readonly #buffers: readonly Buffer[]
  #position: number
  #turn = 0
  #pending: Promise<number> | undefined

  constructor(handle: FileHandle, position: number, buffers: readonly Buffer[]) {
    this.#handle = handle
    this.#position = position
    this.#buffers = buffers
  }

  async next(): Promise<Buffer | undefined> {
    const buffer = this.#buffers[this.#turn]!
    const pending = this.#pending
    this.#pending = undefined
    const bytesRead = await (pending ?? this.#read(buffer))
    if (bytesRead === 0) return undefined
    this.#position += bytesRead
    if (this.#buffers.length > 1) {
      this.#turn ^= 1
      this.#pending = this.#read(this.#buffers[this.#turn]!)
    }
    return bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead)
  }

  /** Waits for a read still in flight (its result, or failure, no longer matters). */
  async settle(): Promise<void> {
    await this.#pending?.catch(() => {})
    this.#pending = undefined
  }

  async #read(buffer: Buffer): Promise<number> {
    const { bytesRead } = await this.#handle.read(buffer, 0, buffer.length, this.#position)
    return bytesRead
  }
}
