// One client's SSE stream of the event log: from where it left off, filtered to its sessions, at the
// pace its connection takes.
import { type EventLog, type LoggedEvent, SYNC_EVENT } from "./event-log.ts"

/** A comment line every so often on a quiet stream, so proxies and clients know it is alive. */
export const DEFAULT_HEARTBEAT_MS = 15_000

/** How soon a browser's EventSource reconnects after the stream ends (sent as `retry:`). */
const RETRY_MS = 1000

/** Events looked at per read of the stream, at most. */
const BATCH = 256

/**
 * Bytes handed to the connection per read of the stream, at most: all a client that stops reading
 * holds besides its socket (a larger frame goes out in pieces of this size).
 */
export const CHUNK_CHARS = 64 * 1024

/** An event the server sends before it ends a stream: the client may reconnect with its `Last-Event-ID`. */
export const CLOSED_EVENT = "server.closed"

export interface EventStreamOptions {
  readonly log: EventLog
  /** The client's `Last-Event-ID` (or `?after=`), if it had one. */
  readonly lastEventID?: string | null
  /** Only the events of these sessions (empty or absent: every event). */
  readonly sessions?: readonly string[]
  readonly heartbeatMs?: number
  /** Aborts when the client goes away. */
  readonly signal?: AbortSignal
  /** Drops the client's connection: a stalled client closed by the log never reads to the end. */
  readonly disconnect?: () => void
}

/**
 * The stream.
 * 1. `retry:` and a `server.connected` event: the server's epoch, the id of the newest event, and
 *    whether the stream resumes the client's (it does when its `Last-Event-ID` is this process's and
 *    everything after it is still held).
 * 2. A client that cannot resume (no id: it starts now; an id from before a restart, or too old) is
 *    told so by `resumed: false`, and one whose id was known but is too old also gets `server.sync`:
 *    it fetches its state from the API, and the events that follow keep it current.
 * 3. Then every event after its position, in order, each exactly once: the stream is pulled, so it
 *    only reads the log as fast as the connection takes the bytes, and a client that falls behind
 *    further than the log holds gets `server.sync` when it catches up, instead of holding memory.
 * 4. A heartbeat comment when nothing was written for `heartbeatMs`.
 * 5. Each read hands the connection at most `CHUNK_CHARS` (a larger frame in pieces), so a client
 *    that stops reading holds that much at most. The log counts its readers: one closed to make room
 *    gets `server.closed` with the reason and its `Last-Event-ID` to reconnect with, and when it had
 *    stopped reading its connection is dropped (it would never read to the end).
 */
export function eventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const { log } = options
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS
  const sessions = options.sessions?.length ? new Set(options.sessions) : undefined
  const encoder = new TextEncoder()
  const stop = new AbortController()
  const onAbort = () => {
    stop.abort()
    leave?.()
  }
  options.signal?.addEventListener("abort", onAbort, { once: true })

  // 1, 2. Where the client starts.
  let leave: (() => void) | undefined
  const known = log.position(options.lastEventID)
  let cursor = known ?? log.last
  const resumed = known !== undefined && log.after(known, 0) !== undefined
  let lastWrite = Date.now()
  /** What is left of the frame cut at the end of the last chunk. */
  let rest: Uint8Array | undefined
  /** Whether the connection asked for more and waits for it. */
  let pulling = false
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined
  const reader = {
    get cursor() {
      return cursor
    },
    get stalled() {
      return !pulling
    },
    close(reason: string) {
      const resume = cursor > 0 ? log.id(cursor) : undefined
      stop.abort()
      try {
        if (rest) stream?.enqueue(rest)
        stream?.enqueue(
          encoder.encode(data(CLOSED_EVENT, { reason: `${reason}; reconnect to go on`, resume })),
        )
        stream?.close()
      } catch {
        // Already closed.
      }
      rest = undefined
      if (!pulling) options.disconnect?.()
    },
  }

  const matches = (event: LoggedEvent) =>
    !sessions || event.type === SYNC_EVENT || (event.session !== undefined && sessions.has(event.session))

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream = controller
        leave = log.join(reader)
        const hello = { epoch: log.epoch, last: log.id(log.last), resumed }
        let text = `retry: ${RETRY_MS}\n\n${data("server.connected", hello)}`
        if (known !== undefined && !resumed) {
          text += data(SYNC_EVENT, { reason: "events after the last one you saw are no longer held" })
          cursor = log.last
        }
        controller.enqueue(encoder.encode(text))
      },
      async pull(controller) {
        pulling = true
        try {
          // 5. The rest of a frame cut short goes first.
          if (rest) return write(controller, [])
          // 3, 4. The next events, or a heartbeat.
          while (!stop.signal.aborted) {
            const batch = log.after(cursor, BATCH)
            if (batch === undefined) {
              cursor = log.last
              return write(controller, [
                encoder.encode(data(SYNC_EVENT, { reason: "you fell too far behind the server" })),
              ])
            }
            if (batch.length > 0) {
              // Frames as the log holds them, encoded once for every client.
              const frames: Uint8Array[] = []
              let size = 0
              for (const event of batch) {
                cursor = event.seq
                if (matches(event)) {
                  const bytes = event.bytes ?? encoder.encode(event.frame)
                  frames.push(bytes)
                  size += bytes.length
                }
                if (size >= CHUNK_CHARS) break
              }
              if (frames.length > 0) return write(controller, frames)
              continue
            }
            const wait = Math.max(1, heartbeatMs - (Date.now() - lastWrite))
            const news = await log.wait(cursor, wait, stop.signal)
            if (!news && !stop.signal.aborted && Date.now() - lastWrite >= heartbeatMs) {
              return write(controller, [encoder.encode(": heartbeat\n\n")])
            }
          }
          // Closed by the log (it said why), or the client went away.
          if (stream) controller.close()
        } catch {
          // The log closed the stream while this read waited.
        } finally {
          pulling = false
        }
      },
      cancel() {
        stop.abort()
        leave?.()
        options.signal?.removeEventListener("abort", onAbort)
      },
    },
    { highWaterMark: 0 },
  )

  /**
   * Writes `frames` after what was left, at most `CHUNK_CHARS` bytes of them; keeps the rest for the
   * next read. A cut may fall inside a character: the stream is bytes, which the client decodes as one.
   */
  function write(controller: ReadableStreamDefaultController<Uint8Array>, frames: Uint8Array[]): void {
    lastWrite = Date.now()
    const pieces = adjacentJoined(rest ? [rest, ...frames] : frames)
    const all = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)
    const cut = Math.min(all.length, CHUNK_CHARS)
    // A copy of what is left, so the chunk handed on does not keep the whole batch alive.
    rest = cut < all.length ? Uint8Array.prototype.slice.call(all, cut) : undefined
    controller.enqueue(all.subarray(0, cut))
  }
}

/**
 * The pieces, each run of them that lie back to back in one buffer (the log's frames in a slab,
 * held-frames.ts) as one view of it: a batch is then mostly handed on without a copy (copying every
 * batch for every client was 3% of serve's CPU under bench/serve-load.bench.ts).
 */
function adjacentJoined(pieces: readonly Uint8Array[]): Uint8Array[] {
  const joined: Uint8Array[] = []
  for (const piece of pieces) {
    const last = joined.at(-1)
    if (last && last.buffer === piece.buffer && last.byteOffset + last.byteLength === piece.byteOffset)
      joined[joined.length - 1] = new Uint8Array(
        last.buffer,
        last.byteOffset,
        last.byteLength + piece.byteLength,
      )
    else joined.push(piece)
  }
  return joined
}

/** A frame without an id: it does not move the client's `Last-Event-ID`. */
function data(type: string, properties: unknown): string {
  return `data: ${JSON.stringify({ type, properties })}\n\n`
}
