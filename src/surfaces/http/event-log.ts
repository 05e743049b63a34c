// The bus's events in one numbered order, kept for a while so a client that reconnects gets what it
// missed (SSE `Last-Event-ID`). One subscriber feeds it; every SSE client reads it at its own pace.
import { randomBytes } from "node:crypto"
import { monotonicMs } from "../../platform/util/clock.ts"
import { type AnyEvent, type Bus, type Subscription, sessionOf } from "../../runtime/bus/bus.ts"
import { HeldFrames, type LoggedEvent } from "./held-frames.ts"

export type { LoggedEvent }

/** Events held for resuming at most (the oldest go first). */
export const DEFAULT_EVENT_CAPACITY = 20_000

/**
 * Bytes of serialized events held for resuming at most (a completed part carries its output). The
 * frames are held as UTF-8 outside V8's heap (V8 sizes its heap at a multiple of what is live there,
 * keeping the pages it grew to: when the log held 64 MiB of strings, reads of 1,000-line files left
 * serve's live heap at 94 MiB instead of 45 and its RSS about 60 MiB higher). 16 MiB still holds
 * minutes of a busy agent's calls (some 350 completed reads of 45 KB); a client away for longer gets
 * `server.sync` and refetches.
 */
export const DEFAULT_EVENT_BYTES = 16 * 1024 * 1024

/**
 * The least time between two wakes of the waiting clients: what an event may wait at most so that a
 * busy server writes each client a batch of events instead of one write per event.
 */
export const WAKE_GAP_MS = 10

/** The bus queue of the log's own subscriber: far more than a burst of calls publishes at once. */
const SUBSCRIBER_LIMIT = 200_000

/**
 * SSE clients reading the log at once. Each holds at most one chunk of frames its connection has
 * not taken (see `sse.ts`); past this many, the one furthest behind is closed to make room.
 */
export const DEFAULT_MAX_READERS = 64

/** A client reading the log (an SSE stream), as the log sees it to choose whom to close. */
export interface LogReader {
  /** The seq of the last event it was handed. */
  readonly cursor: number
  /** Its connection has not asked for more since it was last handed some. */
  readonly stalled: boolean
  /** Ends it, saying why and how to come back. */
  close(reason: string): void
}

/** An event the server adds to the stream itself: the client must fetch its state again. */
export const SYNC_EVENT = "server.sync"

export interface EventLogOptions {
  /** The bus it follows; none: events come only through `put` (the fleet's log, fleet-events.ts). */
  readonly bus?: Bus
  /** The first part of its ids (default: a new one, naming this process). */
  readonly epoch?: string
  /**
   * Events after `seq` that are no longer held in memory, from elsewhere (the store's event table);
   * `undefined` when they are gone there too.
   */
  readonly backfill?: (seq: number, max: number) => LoggedEvent[] | undefined
  /** Brings the log up to date before a client's `Last-Event-ID` is placed (the fleet's log reads the table). */
  readonly catchUp?: () => void
  /** Called once by `close` (the fleet's log stops its appender and tailer). */
  readonly onClose?: () => void
  readonly capacity?: number
  readonly maxBytes?: number
  /** SSE clients at once (default `DEFAULT_MAX_READERS`). */
  readonly maxReaders?: number
}

/**
 * The server's event order.
 * 1. One bus subscriber (`*`, delivered as a microtask: right after the publisher's own code) appends
 *    every event as it is delivered, in publish order; a tool part's
 *    update is published only once its step is in the journal, so the order agrees with the
 *    journal's. Appending is all it does: a slow SSE client never slows the bus, nor the tools.
 * 2. Each event gets the next number, and its SSE frame is written once, with the id
 *    `<epoch>.<seq>`: the epoch names this process, so an id from before a restart is recognised
 *    as one (the client must fetch its state again) instead of being mistaken for a position.
 * 3. The newest events are held (a count and a byte budget), so `after(seq)` can hand a reconnecting
 *    client exactly what came after its last event; an id older than what is held gets `undefined`.
 * 4. Should the bus ever drop events for the log (its queue overflowed), a `server.sync` event
 *    takes their place: clients then fetch their state again rather than miss something silently.
 * 5. Its readers are counted: one more than `maxReaders` closes the one furthest behind (a stalled
 *    one first), which is told it may reconnect with its `Last-Event-ID`.
 * 6. On a shared PostgreSQL store it follows no bus: fleet-events.ts `put`s the store's events with
 *    their numbers, its epoch is the store's identity (so an id resumes on any instance), and events
 *    no longer held in memory come from the table (`backfill`).
 */
export class EventLog {
  readonly epoch: string
  readonly #capacity: number
  readonly #maxBytes: number
  /** Held events, oldest first: the oldest has seq `#first`. */
  readonly #held: HeldFrames
  #first = 1
  #next = 1
  #lost = false
  #waiters = new Set<() => void>()
  #wakeQueued = false
  #wakeTimer: ReturnType<typeof setTimeout> | undefined
  #lastWake = Number.NEGATIVE_INFINITY
  readonly #readers = new Set<LogReader>()
  readonly #maxReaders: number
  readonly #subscription: Subscription | undefined
  readonly #backfill: EventLogOptions["backfill"]
  readonly #catchUp: EventLogOptions["catchUp"]
  readonly #onClose: EventLogOptions["onClose"]

  constructor(options: EventLogOptions) {
    this.epoch = options.epoch ?? `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`
    this.#capacity = options.capacity ?? DEFAULT_EVENT_CAPACITY
    this.#maxBytes = options.maxBytes ?? DEFAULT_EVENT_BYTES
    this.#maxReaders = options.maxReaders ?? DEFAULT_MAX_READERS
    // Slabs a small part of the budget, so what they keep beyond it stays small too.
    this.#held = new HeldFrames(this.#maxBytes / 32)
    this.#backfill = options.backfill
    this.#catchUp = options.catchUp
    this.#onClose = options.onClose
    this.#subscription = options.bus?.subscribe("*", (event) => this.#append(event), {
      // At once after the publisher (a commit's callbacks), not a turn of the loop later: under load
      // that turn was most of an event's latency (bench/serve-load.bench.ts on a busy machine: from
      // publish to the log p50 183 ms, p99 1.6 s, of an end-to-end p50 236 ms, p99 1.65 s).
      delivery: "microtask",
      limit: SUBSCRIBER_LIMIT,
      overflow: "drop-oldest",
      onOverflow: () => {
        this.#lost = true
      },
    })
  }

  /**
   * Adds an event numbered elsewhere (the store's event table), its frame's data already serialized.
   * Numbers must follow on: one that skips ahead (the table was pruned past us) starts the held events
   * anew from it, so `after` asks `backfill` for anything earlier.
   */
  put(seq: number, type: string, session: string | undefined, data: string): void {
    if (seq < this.#next) return
    if (seq > this.#next) this.#restartAt(seq)
    this.#next = seq + 1
    this.#hold(type, session, `id: ${this.id(seq)}\ndata: ${data}\n\n`)
    this.#wake()
  }

  /** Starts the held events empty, the next one numbered `seq` (where the fleet's log begins). */
  startAt(seq: number): void {
    if (seq !== this.#next) this.#restartAt(seq)
  }

  #restartAt(seq: number): void {
    this.#held.clear()
    this.#first = seq
    this.#next = seq
  }

  /** The seq of the newest event (0 before the first). */
  get last(): number {
    return this.#next - 1
  }

  /** Events held right now. */
  get size(): number {
    return this.#held.size
  }

  /** Bytes of the frames held right now (at most `maxBytes`, unless one frame is larger). */
  get bytes(): number {
    return this.#held.bytes
  }

  /** The SSE id of an event. */
  id(seq: number): string {
    return `${this.epoch}.${seq}`
  }

  /**
   * Where a client's `Last-Event-ID` puts it: the seq it saw last, or `undefined` when the id is
   * not one of this process's (another epoch: the server restarted; or not an id at all).
   */
  position(lastEventID: string | undefined | null): number | undefined {
    if (!lastEventID) return undefined
    const dot = lastEventID.lastIndexOf(".")
    if (dot < 0 || lastEventID.slice(0, dot) !== this.epoch) return undefined
    this.#catchUp?.()
    const seq = Number(lastEventID.slice(dot + 1))
    return Number.isSafeInteger(seq) && seq >= 0 && seq <= this.last ? seq : undefined
  }

  /**
   * Up to `max` events after `seq`, oldest first (empty: none yet). `undefined` when some of the
   * events after `seq` are no longer held: the client must fetch its state again.
   */
  after(seq: number, max: number): LoggedEvent[] | undefined {
    if (seq < this.#first - 1) {
      const earlier = this.#backfill?.(seq, Math.min(max, this.#first - 1 - seq))
      if (earlier === undefined || max === 0) return earlier
      // Gone from the table too when it does not start right after `seq`.
      return earlier.length > 0 && earlier[0]!.seq === seq + 1 ? earlier : undefined
    }
    const start = seq + 1 - this.#first
    return this.#held.slice(start, start + max, this.#first)
  }

  /**
   * Resolves once there is an event after `seq`, or after `timeoutMs`, or when `signal` aborts;
   * true when there is news.
   */
  wait(seq: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.last > seq) return Promise.resolve(true)
    if (signal?.aborted) return Promise.resolve(false)
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#waiters.delete(done)
        signal?.removeEventListener("abort", done)
        resolve(this.last > seq)
      }
      const timer = setTimeout(done, timeoutMs)
      this.#waiters.add(done)
      signal?.addEventListener("abort", done, { once: true })
    })
  }

  /** Readers right now. */
  get readers(): number {
    return this.#readers.size
  }

  /** 5. A new reader, making room first; call the result when it ends. */
  join(reader: LogReader): () => void {
    while (this.#readers.size >= this.#maxReaders) {
      const behind = furthestBehind(this.#readers)
      if (!behind) break
      this.#readers.delete(behind)
      behind.close(
        `${this.#maxReaders} clients were reading the events (the most this server keeps) and this one was the furthest behind`,
      )
    }
    this.#readers.add(reader)
    return () => {
      this.#readers.delete(reader)
    }
  }

  /** Stops following the bus and wakes every waiting client. */
  close(): void {
    this.#subscription?.()
    this.#onClose?.()
    clearTimeout(this.#wakeTimer)
    this.#wakeNow()
  }

  #append(event: AnyEvent): void {
    if (this.#lost) {
      this.#lost = false
      this.#push(SYNC_EVENT, undefined, { reason: "the server could not keep up and dropped events" })
    }
    this.#push(event.type, sessionOf(event), event.properties)
    this.#wake()
  }

  #push(type: string, session: string | undefined, properties: unknown): void {
    const seq = this.#next++
    this.#hold(type, session, `id: ${this.id(seq)}\ndata: ${JSON.stringify({ type, properties })}\n\n`)
  }

  /** 3. Holds the newest event (in `held-frames.ts`: no object of its own), dropping the oldest past the bounds. */
  #hold(type: string, session: string | undefined, frame: string): void {
    this.#held.push(type, session, frame)
    while (this.size > this.#capacity || (this.#held.bytes > this.#maxBytes && this.size > 1)) {
      this.#held.shift()
      this.#first++
    }
  }

  /**
   * Wakes the waiting clients, so that each writes what came in one piece. Every wake costs each
   * client a socket write and its reader a wake-up: one per commit's events took more CPU than the
   * events themselves (bench/serve-load.bench.ts), so wakes are at least `WAKE_GAP_MS` apart.
   * 1. Once that long has passed since the last wake: as soon as the current burst of callbacks is
   *    over (`process.nextTick` runs after the microtasks queued before it; a group commit's calls
   *    publish their events one promise callback after another).
   * 2. Sooner than that: at the first event after it, or by a timer when none comes. A busy server
   *    rarely waits for the timer: its turns of the loop can be long (a turn's worth of HTTP
   *    requests), and a timer fires only between them.
   */
  #wake(): void {
    if (this.#waiters.size === 0 || this.#wakeQueued) return
    const wait = this.#lastWake + WAKE_GAP_MS - monotonicMs()
    if (wait > 0) {
      this.#wakeTimer ??= setTimeout(() => this.#wakeSoon(), wait)
      return
    }
    this.#wakeSoon()
  }

  #wakeSoon(): void {
    if (this.#wakeQueued) return
    this.#wakeQueued = true
    process.nextTick(() => {
      clearTimeout(this.#wakeTimer)
      this.#wakeTimer = undefined
      this.#wakeQueued = false
      this.#lastWake = monotonicMs()
      this.#wakeNow()
    })
  }

  #wakeNow(): void {
    for (const waiter of [...this.#waiters]) waiter()
  }
}

/** The reader to close first: a stalled one before one that keeps up, then the one with the oldest cursor. */
function furthestBehind(readers: Iterable<LogReader>): LogReader | undefined {
  let worst: LogReader | undefined
  for (const reader of readers) {
    if (worst === undefined) worst = reader
    else if (reader.stalled !== worst.stalled) worst = reader.stalled ? reader : worst
    else if (reader.cursor < worst.cursor) worst = reader
  }
  return worst
}
