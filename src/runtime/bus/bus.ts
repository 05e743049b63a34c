import { logger } from "../../platform/util/log.ts"
import type { Event, Events, EventType, Publish } from "./events.ts"

/** Any event, discriminated by `type` (what a `"*"` or per-session subscriber receives). */
export type AnyEvent = { [K in EventType]: Event<K> }[EventType]

/** A subscriber. It may be async: the next event is delivered only after its promise settles. */
export type Handler<E = AnyEvent> = (event: E) => void | PromiseLike<void>

/**
 * What happens when a subscriber's queue is full:
 * - `drop-oldest`: the oldest queued event is dropped and the subscription's `dropped` counter grows;
 * - `disconnect`: the subscription is closed (queued events are dropped); a stuck SSE client is cut
 *   off and must reconnect and resynchronise.
 */
export type OverflowPolicy = "drop-oldest" | "disconnect"

export interface OverflowInfo {
  readonly policy: OverflowPolicy
  /** Events dropped for this subscriber so far (for `disconnect`, those left in its queue). */
  readonly dropped: number
}

/**
 * When a subscriber's queue is drained:
 * - `macrotask` (the default): in a later turn of the event loop (`setImmediate`), after the I/O
 *   that is ready;
 * - `microtask`: as soon as the publisher's synchronous code is done, in the same turn. For cheap
 *   synchronous handlers that others wait on (serve's event log): a `macrotask` subscriber's events
 *   wait for a whole turn of the loop, which under load (a turn full of HTTP requests) is most of
 *   what an SSE client waits. A drain still yields to I/O after a slice (`MICROTASK_SLICE_MS`),
 *   then goes on as a macrotask.
 */
export type Delivery = "macrotask" | "microtask"

export interface SubscribeOptions {
  /** The most events held for this subscriber while it catches up (default: the bus's). */
  readonly limit?: number
  /** Default `macrotask`. */
  readonly delivery?: Delivery
  /** Default: the bus's (`drop-oldest` unless configured). */
  readonly overflow?: OverflowPolicy
  /** Told on every overflow: each dropped event, or the disconnect. */
  readonly onOverflow?: (info: OverflowInfo) => void
}

export interface BusOptions {
  /** Default per-subscriber queue limit: 10,000 events. */
  readonly limit?: number
  /** Default overflow policy: `drop-oldest`. */
  readonly overflow?: OverflowPolicy
  /** Told when a subscriber throws or rejects; default: logged to stderr. */
  readonly onError?: (error: unknown, event: AnyEvent) => void
}

/**
 * What `subscribe` returns: call it to unsubscribe (idempotent). Events still queued for the subscriber
 * are dropped; a delivery already in progress finishes, nothing after it is delivered.
 */
export interface Subscription {
  (): void
  [Symbol.dispose](): void
  readonly closed: boolean
  /** Why it closed: the subscriber unsubscribed, or its queue overflowed under `disconnect`. */
  readonly reason: "unsubscribed" | "overflow" | undefined
  /** Events dropped because the queue was full. */
  readonly dropped: number
  /** Events queued and not yet delivered. */
  readonly pending: number
}

export const DEFAULT_QUEUE_LIMIT = 10_000

/** How long a drain may deliver to synchronous handlers in one macrotask before it yields to I/O. */
const SLICE_MS = 4

/**
 * The same for a `microtask` subscriber: longer, since yielding costs its events a whole turn of the
 * loop, the wait it exists to avoid: on a busy machine a 4 ms slice of wall time can end after one
 * event (the process was not running), leaving the rest of a commit's burst for the next turn.
 */
const MICROTASK_SLICE_MS = 50

const log = logger("bus")

/** The session an event belongs to: `properties.sessionID`, else `properties.part.sessionID`. */
export function sessionOf(event: Event): string | undefined {
  const properties = event.properties as { sessionID?: unknown; part?: { sessionID?: unknown } }
  if (typeof properties.sessionID === "string") return properties.sessionID
  const nested = properties.part?.sessionID
  return typeof nested === "string" ? nested : undefined
}

/**
 * The one event bus. `publish` is synchronous and never waits on a subscriber: each subscriber has its
 * own bounded queue, drained asynchronously in publish order (so every subscriber sees events in the
 * order they were published, overall and therefore per session). A subscriber that throws is reported
 * and keeps receiving. A slow subscriber only delays itself; when its queue is full the overflow policy
 * applies, so a stuck client cannot grow memory without bound.
 */
export class Bus {
  readonly #limit: number
  readonly #overflow: OverflowPolicy
  readonly #onError: (error: unknown, event: AnyEvent) => void
  /** Copy-on-write: a publish iterates the subscribers present when it started. */
  #subscribers: readonly Subscriber[] = []

  constructor(options: BusOptions = {}) {
    this.#limit = checkLimit(options.limit ?? DEFAULT_QUEUE_LIMIT)
    this.#overflow = options.overflow ?? "drop-oldest"
    this.#onError = options.onError ?? reportToStderr
  }

  /** Publishes an event to every matching subscriber; returns at once. Bound, so it can be passed on. */
  readonly publish: Publish = <T extends EventType>(type: T, properties: Events[T]): void => {
    const event = Object.freeze({ type, properties }) as unknown as AnyEvent
    for (const subscriber of this.#subscribers) {
      if (subscriber.accepts(event)) subscriber.push(event)
    }
  }

  /** Receives the events of one type, or of every type with `"*"`. */
  subscribe<T extends EventType>(
    type: T,
    handler: Handler<Event<T>>,
    options?: SubscribeOptions,
  ): Subscription
  subscribe(type: "*", handler: Handler, options?: SubscribeOptions): Subscription
  subscribe(type: EventType | "*", handler: Handler<never>, options: SubscribeOptions = {}): Subscription {
    const accepts = type === "*" ? () => true : (event: AnyEvent) => event.type === type
    return this.#add(accepts, handler as Handler, options)
  }

  /** Receives every event that belongs to a session (`sessionID`, or `part.sessionID`), in order. */
  subscribeSession(sessionID: string, handler: Handler, options: SubscribeOptions = {}): Subscription {
    return this.#add((event) => sessionOf(event) === sessionID, handler, options)
  }

  /**
   * The next event of a type that satisfies `predicate` (handy in tests). Rejects when `signal` aborts
   * or after `timeout` milliseconds, if given.
   */
  once<T extends EventType>(
    type: T,
    predicate?: (event: Event<T>) => boolean,
    options: { signal?: AbortSignal; timeout?: number } = {},
  ): Promise<Event<T>> {
    return new Promise<Event<T>>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const finish = (settle: () => void) => {
        unsubscribe()
        if (timer) clearTimeout(timer)
        options.signal?.removeEventListener("abort", onAbort)
        settle()
      }
      const onAbort = () =>
        finish(() =>
          reject(options.signal?.reason ?? new Error("Stopped waiting for the event: the wait was aborted.")),
        )
      const unsubscribe = this.subscribe(type, (event) => {
        if (unsubscribe.closed) return
        let matched: boolean
        try {
          matched = predicate ? predicate(event) : true
        } catch (error) {
          finish(() => reject(error))
          return
        }
        if (matched) finish(() => resolve(event))
      })
      if (options.signal?.aborted) return onAbort()
      options.signal?.addEventListener("abort", onAbort, { once: true })
      if (options.timeout !== undefined) {
        const ms = options.timeout
        timer = setTimeout(
          () => finish(() => reject(new Error(`Timed out after ${ms} ms waiting for ${type}`))),
          ms,
        )
      }
    })
  }

  /** Active subscriptions. */
  get size(): number {
    return this.#subscribers.length
  }

  /** Resolves once every subscriber has drained its queue (never, while one is stuck). */
  async idle(): Promise<void> {
    while (true) {
      const busy = this.#subscribers.filter((subscriber) => subscriber.busy)
      if (!busy.length) return
      await Promise.all(busy.map((subscriber) => subscriber.idle()))
    }
  }

  #add(accepts: (event: AnyEvent) => boolean, handler: Handler, options: SubscribeOptions): Subscription {
    const subscriber = new Subscriber({
      accepts,
      handler,
      limit: checkLimit(options.limit ?? this.#limit),
      overflow: options.overflow ?? this.#overflow,
      delivery: options.delivery ?? "macrotask",
      onOverflow: options.onOverflow,
      onError: this.#onError,
      onClose: (closed) => {
        this.#subscribers = this.#subscribers.filter((other) => other !== closed)
      },
    })
    this.#subscribers = [...this.#subscribers, subscriber]
    return subscriber.subscription()
  }
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`The bus queue limit must be a positive integer, got ${limit}`)
  }
  return limit
}

function reportToStderr(error: unknown, event: AnyEvent): void {
  log.error("subscriber failed", {
    type: event.type,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  })
}

interface SubscriberInit {
  readonly accepts: (event: AnyEvent) => boolean
  readonly handler: Handler
  readonly limit: number
  readonly overflow: OverflowPolicy
  readonly delivery: Delivery
  readonly onOverflow: ((info: OverflowInfo) => void) | undefined
  readonly onError: (error: unknown, event: AnyEvent) => void
  readonly onClose: (subscriber: Subscriber) => void
}

/** One subscriber: its bounded FIFO queue and the loop that drains it. */
class Subscriber {
  readonly accepts: (event: AnyEvent) => boolean
  readonly #init: SubscriberInit
  /** FIFO: `#queue[#head]` is the oldest undelivered event. */
  #queue: (AnyEvent | undefined)[] = []
  #head = 0
  /** A drain is queued: as a macrotask, or as a microtask. */
  #scheduled = false
  #queuedMicrotask = false
  #draining = false
  #closed = false
  #reason: "unsubscribed" | "overflow" | undefined
  #dropped = 0
  #waiters: (() => void)[] = []

  constructor(init: SubscriberInit) {
    this.accepts = init.accepts
    this.#init = init
  }

  get pending(): number {
    return this.#queue.length - this.#head
  }

  get busy(): boolean {
    return !this.#closed && (this.pending > 0 || this.#draining)
  }

  push(event: AnyEvent): void {
    if (this.#closed) return
    if (this.pending >= this.#init.limit) {
      if (this.#init.overflow === "disconnect") {
        this.#dropped += this.pending + 1
        this.close("overflow")
        this.#notifyOverflow()
        return
      }
      this.#shift()
      this.#dropped++
      this.#notifyOverflow()
      if (this.#closed) return
    }
    this.#queue.push(event)
    this.#schedule()
  }

  close(reason: "unsubscribed" | "overflow"): void {
    if (this.#closed) return
    this.#closed = true
    this.#reason = reason
    this.#queue = []
    this.#head = 0
    this.#init.onClose(this)
    this.#release()
  }

  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  subscription(): Subscription {
    const unsubscribe = () => this.close("unsubscribed")
    return Object.defineProperties(unsubscribe, {
      [Symbol.dispose]: { value: unsubscribe },
      closed: { get: () => this.#closed },
      reason: { get: () => this.#reason },
      dropped: { get: () => this.#dropped },
      pending: { get: () => this.pending },
    }) as Subscription
  }

  #notifyOverflow(): void {
    try {
      this.#init.onOverflow?.({ policy: this.#init.overflow, dropped: this.#dropped })
    } catch (error) {
      log.error("onOverflow failed", { error: String(error) })
    }
  }

  #shift(): AnyEvent | undefined {
    if (this.#head >= this.#queue.length) return undefined
    const event = this.#queue[this.#head]
    this.#queue[this.#head] = undefined
    this.#head++
    if (this.#head === this.#queue.length) {
      this.#queue = []
      this.#head = 0
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head)
      this.#head = 0
    }
    return event
  }

  /** `yielding`: the last drain used up its slice, so the next waits for the loop to come round. */
  #schedule(yielding = false): void {
    if (this.#draining || this.#closed) return
    if (this.#init.delivery === "microtask" && !yielding) {
      // After the publisher's synchronous code, never inside it; a macrotask already queued (the
      // last slice ran out) finds the queue drained here and does nothing.
      if (this.#queuedMicrotask) return
      this.#queuedMicrotask = true
      queueMicrotask(() => {
        this.#queuedMicrotask = false
        void this.#drain()
      })
      return
    }
    if (this.#scheduled) return
    this.#scheduled = true
    // A macrotask: delivery waits for the I/O that is ready.
    setImmediate(() => {
      this.#scheduled = false
      void this.#drain()
    })
  }

  async #drain(): Promise<void> {
    if (this.#draining) return
    this.#draining = true
    let sliceStart = performance.now()
    const slice = this.#init.delivery === "microtask" ? MICROTASK_SLICE_MS : SLICE_MS
    let yielding = false
    try {
      while (!this.#closed) {
        const event = this.#shift()
        if (!event) break
        try {
          const result = this.#init.handler(event)
          if (result && typeof result.then === "function") {
            await result
            sliceStart = performance.now()
          }
        } catch (error) {
          this.#report(error, event)
        }
        // Synchronous handlers: yield to I/O now and then, so a flood of events never starves it.
        if (performance.now() - sliceStart > slice) {
          yielding = true
          break
        }
      }
    } finally {
      this.#draining = false
      if (this.pending > 0 && !this.#closed) this.#schedule(yielding)
      else this.#release()
    }
  }

  #report(error: unknown, event: AnyEvent): void {
    try {
      this.#init.onError(error, event)
    } catch {
      // The error reporter itself failed; nothing sensible is left to do.
    }
  }

  #release(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const resolve of waiters) resolve()
  }
}
