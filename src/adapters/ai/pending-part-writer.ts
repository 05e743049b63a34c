// How the stream processor records the pending part of a call whose input is still arriving: published
// at once, stored once per turn of the event loop, and never once settlement owns the call.
import type { Store } from "../../platform/store/store.ts"
import type { Bus } from "../../runtime/bus/bus.ts"
import type { CallEntry } from "./calls.ts"

export class PendingPartWriter {
  readonly #store: Store
  readonly #bus: Bus
  /** Pending parts changed since the last write. */
  readonly #dirty = new Set<CallEntry>()
  #writeScheduled = false

  constructor(options: { readonly store: Store; readonly bus: Bus }) {
    this.#store = options.store
    this.#bus = options.bus
  }

  /**
   * Publishes the entry's pending part now and stores it (without a journal entry: settlement journals
   * the call once it runs) at the end of this turn of the event loop, so the updates a fast stream makes
   * in one turn cost one write, and a call dispatched meanwhile is not written at all.
   */
  persist(entry: CallEntry): void {
    if (!entry.part) return
    this.#bus.publish("message.part.updated", { part: entry.part })
    this.#dirty.add(entry)
    if (this.#writeScheduled) return
    this.#writeScheduled = true
    setImmediate(() => this.#write())
  }

  #write(): void {
    this.#writeScheduled = false
    for (const entry of this.#dirty) {
      this.#dirty.delete(entry)
      // Once dispatched, settlement owns the part: the processor's pending state must not land after it.
      if (entry.phase !== "streaming" || !entry.part) continue
      try {
        entry.part = this.#store.parts.upsert(entry.part)
      } catch {
        // The call was recorded as finished already (a resumed run): leave the record alone.
      }
    }
  }
}
