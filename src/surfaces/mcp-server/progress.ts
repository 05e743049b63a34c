// Live progress of a running call (its `ctx.metadata` updates) as MCP progress notifications.
import type { ProgressToken } from "@modelcontextprotocol/server"
import type { RunningState } from "../../platform/store/part.ts"
import { monotonicMs } from "../../platform/util/clock.ts"

/** At most one notification per this many milliseconds; the latest update wins. */
export const PROGRESS_INTERVAL_MS = 100
const MESSAGE_MAX_CHARS = 200

/** Where progress goes: the client's token on the current request, and how to notify it. */
export interface ProgressSink {
  readonly token: ProgressToken
  readonly notify: (notification: {
    method: "notifications/progress"
    params: { progressToken: ProgressToken; progress: number; message?: string }
  }) => Promise<void>
}

/**
 * The message for one running state: its title (the tool's name when it has none), then the last
 * line of `metadata.output` when the tool streams output (the shell does), bounded.
 */
export function progressMessage(state: RunningState, tool: string): string {
  const title = state.title || tool
  const output = state.metadata?.output
  const last = typeof output === "string" ? lastLine(output) : ""
  const message = last ? `${title}: ${last}` : title
  return message.length > MESSAGE_MAX_CHARS ? `${message.slice(0, MESSAGE_MAX_CHARS - 1)}…` : message
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/)
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim()
    if (line) return line
  }
  return ""
}

/**
 * Sends progress for one call, throttled to one notification per interval (the latest message
 * wins), with a counter that only grows across the requests of the call. Stops for good once the
 * call's result is being returned: no progress may follow it.
 */
export class ProgressReporter {
  readonly #intervalMs: number
  #sink: ProgressSink | undefined
  #count = 0
  #lastSent = -Infinity
  #pending: string | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #stopped = false

  constructor(intervalMs = PROGRESS_INTERVAL_MS) {
    this.#intervalMs = intervalMs
  }

  /** The request progress now goes to (each request of a multi-round call has its own token). */
  attach(sink: ProgressSink | undefined): void {
    this.#sink = sink
  }

  update(message: string): void {
    if (this.#stopped) return
    this.#pending = message
    if (this.#timer) return
    const wait = this.#lastSent + this.#intervalMs - monotonicMs()
    if (wait <= 0) this.#flush()
    else this.#timer = setTimeout(() => this.#flush(), wait)
  }

  /**
   * No more progress. An update still waiting for its interval is dropped, not sent: one sent right
   * before the result arrives with it, and clients built on the MCP TypeScript SDK dispatch a
   * notification a microtask after the response that ends its request, so over stdio they would lose
   * it and report an unknown progress token.
   */
  stop(): void {
    this.#stopped = true
    this.#sink = undefined
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #flush(): void {
    this.#timer = undefined
    const message = this.#pending
    const sink = this.#sink
    this.#pending = undefined
    if (message === undefined || !sink || this.#stopped) return
    this.#lastSent = monotonicMs()
    this.#count += 1
    sink
      .notify({
        method: "notifications/progress",
        params: { progressToken: sink.token, progress: this.#count, message },
      })
      // The request may be gone (cancelled, disconnected): progress is best effort.
      .catch(() => {})
  }
}
