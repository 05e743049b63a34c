// How the stream processor records a final part it decides itself (settlement did not, or could not):
// journalled, group-committed with the writes that follow, published once on disk.
import { CallSettledError } from "../../platform/store/journal.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import type { Store } from "../../platform/store/store.ts"
import type { Bus } from "../../runtime/bus/bus.ts"
import type { CallEntry } from "./calls.ts"

export interface FinalPartWriterOptions {
  readonly store: Store
  readonly bus: Bus
  /** A write that failed for any reason but settlement having finished the call first. */
  readonly onError: (error: unknown) => void
}

export class FinalPartWriter {
  readonly #store: Store
  readonly #bus: Bus
  readonly #onError: (error: unknown) => void
  /** Final parts being journalled. */
  readonly #writes = new Set<Promise<void>>()

  constructor(options: FinalPartWriterOptions) {
    this.#store = options.store
    this.#bus = options.bus
    this.#onError = options.onError
  }

  /**
   * Closes the call with `part` and journals it. The call is closed at once, so nothing else writes it;
   * the part is published once committed. When settlement finished the call meanwhile, its record stands.
   */
  write(entry: CallEntry, part: ToolPart): void {
    entry.phase = "settled"
    entry.part = part
    const write = this.#store.journal.finished(part).then(
      (stored) => {
        entry.part = stored
        this.#bus.publish("message.part.updated", { part: stored })
      },
      (error: unknown) => {
        if (error instanceof CallSettledError) entry.part = error.part
        else this.#onError(error)
      },
    )
    this.#writes.add(write)
    void write.finally(() => this.#writes.delete(write))
  }

  /** Resolves once every write started (also those started while waiting) is done. */
  async drain(): Promise<void> {
    while (this.#writes.size) await Promise.all(this.#writes)
  }
}
