import { logger } from "../../platform/util/log.ts"
import type { Event, Events, EventType, Publish } from "./events.ts"
import { Subscriber } from "./subscriber.ts"
import type {
  AnyEvent,
  BusOptions,
  Handler,
  OverflowPolicy,
  SubscribeOptions,
  Subscription,
} from "./subscription.ts"

export type {
  AnyEvent,
  BusOptions,
  Delivery,
  Handler,
  OverflowInfo,
  OverflowPolicy,
  SubscribeOptions,
  Subscription,
} from "./subscription.ts"

export const DEFAULT_QUEUE_LIMIT = 10_000

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
