// Finding where the last lines before a point begin by reading backwards, as `tail -n` does: the cost
// depends on the size of the lines passed over, not of the file.
import type { FileHandle } from "node:fs/promises"
import { giveCounter, takeCounter } from "./chunk-reader.ts"

/** Bytes read at a time when scanning backwards. */
const TAIL_CHUNK_BYTES = 1 << 16
const LF = 0x0a

/**
 * Byte offset where the last `count` lines before `end` begin; `end` is the start of a line or the end
 * of the file.
 */
export async function startOfLastLines(options: {
  handle: FileHandle
  end: number
  count: number
  signal: AbortSignal | undefined
}): Promise<number> {
  const { handle, end, count, signal } = options
  if (count <= 0) return end
  const counter = takeCounter()
  try {
    const block = counter.buffers[0]!.subarray(0, TAIL_CHUNK_BYTES)
    let found = 0
    let first = true
    for (let until = end; until > 0; ) {
      signal?.throwIfAborted()
      const from = Math.max(0, until - TAIL_CHUNK_BYTES)
      const { bytesRead } = await handle.read(block, 0, until - from, from)
      let searchFrom = bytesRead - 1
      // The newline just before `end` ends the line before it; it does not start another one.
      if (first && block[bytesRead - 1] === LF) searchFrom--
      first = false
      while (searchFrom >= 0) {
        const at = block.lastIndexOf(LF, searchFrom)
        if (at === -1) break
        found++
        if (found === count) return from + at + 1
        searchFrom = at - 1
      }
      until = from
    }
    return 0
  } finally {
    giveCounter(counter)
  }
}
