// One subscriber of the bus (bus.ts): its bounded FIFO queue and the loop that drains it, in a macrotask
// or a microtask, yielding to I/O after a slice.

import { monotonicMs } from "../../platform/util/clock.ts"
import { logger } from "../../platform/util/log.ts"
import type {
  AnyEvent,
  Delivery,
  Handler,
  OverflowInfo,
  OverflowPolicy,
  Subscription,
} from "./subscription.ts"

/** How long a drain may deliver to synchronous handlers in one macrotask before it yields to I/O. */
const SLICE_MS = 4

/**
 * The same for a `microtask` subscriber: longer, since yielding costs its events a whole turn of the
 * loop, the wait it exists to avoid: on a busy machine a 4 ms slice of wall time can end after one
 * event (the process was not running), leaving the rest of a commit's burst for the next turn.
 */
const MICROTASK_SLICE_MS = 50

const log = logger("bus")

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
export class Subscriber {
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
    let sliceStart = monotonicMs()
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
            sliceStart = monotonicMs()
          }
        } catch (error) {
          this.#report(error, event)
        }
        // Synchronous handlers: yield to I/O now and then, so a flood of events never starves it.
        if (monotonicMs() - sliceStart > slice) {
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
