import { TooLarge } from "./errors.ts"

/** The parts of a fetch Response this reads (both Node's and undici's qualify). */
export interface BodySource {
  readonly headers: { get(name: string): string | null }
  readonly body: ReadableStream<Uint8Array> | null
}

/**
 * Reads a response body whole, holding at most `limit` bytes: a Content-Length over the limit is
 * refused before reading, and a body that grows past it while streaming (chunked, compressed, or a
 * Content-Length that lied) is cancelled at that point. Counts the decoded bytes, so a compressed
 * bomb stops at the same limit.
 */
export async function readCapped(response: BodySource, limit: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN)
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => {})
    throw new TooLarge(limit, declared)
  }
  if (!response.body) return new Uint8Array(0)
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
      if (total > limit) {
        await reader.cancel().catch(() => {})
        throw new TooLarge(limit)
      }
      chunks.push(value)
    }
  } finally {
    reader.releaseLock()
  }
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}
