// Saved outputs shared by the fleet: a saved file copied into the store's chunk rows, and an output read
// back as a stream, from those rows or from this instance's file.
import { createReadStream } from "node:fs"
import { open, stat } from "node:fs/promises"
import { basename, join } from "node:path"
import { Readable } from "node:stream"
import { OUTPUT_CHUNK_BYTES, type OutputOwner, type StoredOutputs } from "../../platform/store/outputs.ts"

/** An output's id as the API takes it: the saved file's name (`tool_` and 26 letters and digits). */
export const OUTPUT_ID = /^tool_[0-9a-f]{12}[0-9A-Za-z]{14}$/

/** A saved output, ready to be sent. */
export interface OpenedOutput {
  readonly id: string
  readonly bytes: number
  /** Where it is read from: the store's rows (any instance's output) or this instance's file. */
  readonly source: "store" | "file"
  readonly stream: ReadableStream<Uint8Array>
}

/**
 * Copies the saved file at `path` into the store as output `basename(path)`.
 * 1. Its row first. An output saved before is left as it is when its size is the file's, or while
 *    another writer is still copying it; one whose file has grown since (a background job's log,
 *    written in place) is removed and copied again.
 * 2. The file is read 1 MiB at a time into one reused buffer and each piece stored as a chunk, yielding
 *    to the event loop between chunks (each statement blocks the thread on PostgreSQL).
 * 3. Its size is recorded last, which makes it visible; on failure its rows are removed and the error
 *    rethrown.
 */
export async function copyToStore(
  shared: StoredOutputs,
  path: string,
  owner: OutputOwner | undefined,
): Promise<void> {
  const id = basename(path)
  const handle = await open(path, "r")
  try {
    if (!shared.begin(id, owner)) {
      const saved = shared.get(id)
      if (!saved || saved.bytes === (await handle.stat()).size) return
      shared.discard(id)
      if (!shared.begin(id, owner)) return
    }
    try {
      const buffer = Buffer.allocUnsafe(OUTPUT_CHUNK_BYTES)
      let bytes = 0
      let seq = 0
      for (;;) {
        const filled = await fill(handle, buffer, bytes)
        if (filled === 0) break
        shared.append(id, seq++, buffer.subarray(0, filled))
        bytes += filled
        if (filled < buffer.length) break
        await new Promise((resolve) => setImmediate(resolve))
      }
      shared.finish(id, bytes, seq)
    } catch (error) {
      try {
        shared.discard(id)
      } catch {
        // The store is unreachable: the sweep removes the unfinished rows in time.
      }
      throw error
    }
  } finally {
    await handle.close()
  }
}

/** Reads into `buffer` from `position` until it is full or the file ends; returns the bytes read. */
async function fill(
  handle: Awaited<ReturnType<typeof open>>,
  buffer: Buffer,
  position: number,
): Promise<number> {
  let filled = 0
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return filled
}

/**
 * Output `id`: from the store's rows when there (whichever instance saved it), else from the file of
 * that name in `dir`; undefined when neither has it. The store's chunks are read one at a time as the
 * reader pulls, so a 200 MB output is never held whole.
 */
export async function openOutput(
  id: string,
  dir: string,
  shared: StoredOutputs | undefined,
): Promise<OpenedOutput | undefined> {
  if (!OUTPUT_ID.test(id)) return undefined
  const stored = shared?.get(id)
  if (stored) {
    let seq = 0
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (seq >= stored.chunks) return controller.close()
          const chunk = shared!.chunk(id, seq++)
          if (!chunk) {
            controller.error(new Error(`Output ${id} was removed from the store while it was being read.`))
            return
          }
          controller.enqueue(chunk)
        },
      },
      { highWaterMark: 0 },
    )
    return { id, bytes: stored.bytes, source: "store", stream }
  }
  const path = join(dir, id)
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) return undefined
  const stream = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>
  return { id, bytes: info.size, source: "file", stream }
}
