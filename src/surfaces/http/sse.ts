// One client's SSE stream of the event log: from where it left off, filtered to its sessions, at the
// pace its connection takes.
import { type EventLog, type LoggedEvent, SYNC_EVENT } from "./event-log.ts"

/** A comment line every so often on a quiet stream, so proxies and clients know it is alive. */
export const DEFAULT_HEARTBEAT_MS = 15_000

/** How soon a browser's EventSource reconnects after the stream ends (sent as `retry:`). */
const RETRY_MS = 1000

/** Events written per read of the stream, at most. */
const BATCH = 256

export interface EventStreamOptions {
  readonly log: EventLog
  /** The client's `Last-Event-ID` (or `?after=`), if it had one. */
  readonly lastEventID?: string | null
  /** Only the events of these sessions (empty or absent: every event). */
  readonly sessions?: readonly string[]
  readonly heartbeatMs?: number
  /** Aborts when the client goes away. */
  readonly signal?: AbortSignal
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
 */
export function eventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const { log } = options
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS
  const sessions = options.sessions?.length ? new Set(options.sessions) : undefined
  const encoder = new TextEncoder()
  const stop = new AbortController()
  const onAbort = () => stop.abort()
  options.signal?.addEventListener("abort", onAbort, { once: true })

  // 1, 2. Where the client starts.
  const known = log.position(options.lastEventID)
  let cursor = known ?? log.last
  const resumed = known !== undefined && log.after(known, 0) !== undefined
  let lastWrite = Date.now()

  const matches = (event: LoggedEvent) =>
    !sessions || event.type === SYNC_EVENT || (event.session !== undefined && sessions.has(event.session))

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const hello = { epoch: log.epoch, last: log.id(log.last), resumed }
        let text = `retry: ${RETRY_MS}\n\n${data("server.connected", hello)}`
        if (known !== undefined && !resumed) {
          text += data(SYNC_EVENT, { reason: "events after the last one you saw are no longer held" })
          cursor = log.last
        }
        controller.enqueue(encoder.encode(text))
      },
      async pull(controller) {
        // 3, 4. The next events, or a heartbeat.
        while (!stop.signal.aborted) {
          const batch = log.after(cursor, BATCH)
          if (batch === undefined) {
            cursor = log.last
            return write(controller, data(SYNC_EVENT, { reason: "you fell too far behind the server" }))
          }
          if (batch.length > 0) {
            cursor = batch[batch.length - 1]!.seq
            const frames = batch.filter(matches)
            if (frames.length > 0) return write(controller, frames.map((event) => event.frame).join(""))
            continue
          }
          const wait = Math.max(1, heartbeatMs - (Date.now() - lastWrite))
          const news = await log.wait(cursor, wait, stop.signal)
          if (!news && !stop.signal.aborted && Date.now() - lastWrite >= heartbeatMs) {
            return write(controller, ": heartbeat\n\n")
          }
        }
        controller.close()
      },
      cancel() {
        stop.abort()
        options.signal?.removeEventListener("abort", onAbort)
      },
    },
    { highWaterMark: 0 },
  )

  function write(controller: ReadableStreamDefaultController<Uint8Array>, text: string): void {
    lastWrite = Date.now()
    controller.enqueue(encoder.encode(text))
  }
}

/** A frame without an id: it does not move the client's `Last-Event-ID`. */
function data(type: string, properties: unknown): string {
  return `data: ${JSON.stringify({ type, properties })}\n\n`
}
