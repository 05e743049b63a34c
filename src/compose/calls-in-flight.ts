// The calls this process is running, each with the AbortController that stops it, so a call can be
// stopped by session and call id whatever surface started it (the API, an MCP client, a turn).
import type { ToolPart } from "../platform/store/part.ts"
import type { Settlement } from "../runtime/settle/settle.ts"

/** Who stopped a call, as its record says (`metadata.stoppedBy`): "page", "api", ... */
export type StoppedBy = string

interface Flight {
  readonly controller: AbortController
  stoppedBy: StoppedBy | undefined
  /** The call's settlement once it ends (undefined: settling threw). */
  readonly settled: Promise<Settlement | undefined>
  resolve(settlement: Settlement | undefined): void
}

/** One call while it runs: the signal it runs with, and what to do when it ends. */
export interface Flying {
  readonly signal: AbortSignal
  /** The call settled: it leaves the registry, and whoever stopped it hears how it ended. */
  land(settlement: Settlement | undefined): void
}

const key = (sessionID: string, callID: string) => `${sessionID}\u0000${callID}`

export class CallsInFlight {
  readonly #flights = new Map<string, Flight>()

  /**
   * Registers a call as it starts. Its signal aborts when the caller's does (`outer`: a closed
   * connection, a turn's abort) or when `stop` is called for it.
   */
  start(sessionID: string, callID: string, outer: AbortSignal | undefined): Flying {
    const controller = new AbortController()
    const onOuter = () => controller.abort(outer?.reason)
    if (outer?.aborted) onOuter()
    else outer?.addEventListener("abort", onOuter, { once: true })
    let resolve!: (settlement: Settlement | undefined) => void
    const settled = new Promise<Settlement | undefined>((done) => {
      resolve = done
    })
    const flight: Flight = { controller, stoppedBy: undefined, settled, resolve }
    const id = key(sessionID, callID)
    // The same ids twice at once: the journal answers the second from the first's record, so only the
    // first is stoppable; it keeps its entry.
    const owns = !this.#flights.has(id)
    if (owns) this.#flights.set(id, flight)
    return {
      signal: controller.signal,
      land: (settlement) => {
        outer?.removeEventListener("abort", onOuter)
        if (owns && this.#flights.get(id) === flight) this.#flights.delete(id)
        flight.resolve(settlement)
      },
    }
  }

  /** Whether this process is running the call. */
  has(sessionID: string, callID: string): boolean {
    return this.#flights.has(key(sessionID, callID))
  }

  /** Who stopped the call, while it is still in flight (its final state is being recorded). */
  stoppedBy(sessionID: string, callID: string): StoppedBy | undefined {
    return this.#flights.get(key(sessionID, callID))?.stoppedBy
  }

  /**
   * Stops a call this process runs: its signal aborts (the tool kills its processes; the call is
   * recorded as interrupted, with `stoppedBy`), and the promise gives its settlement (undefined if
   * settling threw). Undefined when this process runs no such call.
   */
  stop(sessionID: string, callID: string, by: StoppedBy): Promise<Settlement | undefined> | undefined {
    const flight = this.#flights.get(key(sessionID, callID))
    if (!flight) return undefined
    flight.stoppedBy ??= by
    flight.controller.abort(new Error(`Stopped (${by}).`))
    return flight.settled
  }
}

/** The part with who stopped it, when it ends interrupted and someone did. */
export function markStopped(part: ToolPart, by: StoppedBy | undefined): ToolPart {
  const { state } = part
  if (by === undefined || state.status !== "error" || state.metadata?.interrupted !== true) return part
  return { ...part, state: { ...state, metadata: { ...state.metadata, stoppedBy: by } } }
}
