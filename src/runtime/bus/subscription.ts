// The shapes of a bus subscription (bus.ts, subscriber.ts): handlers, delivery, overflow, and what
// `subscribe` returns.

import type { Event, EventType } from "./events.ts"

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
