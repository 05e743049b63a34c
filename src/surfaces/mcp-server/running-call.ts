// A call of an MCP connection in flight: it outlives one MCP request while an ask waits for the
// client's answer, and carries what the session needs to resume it.
import { randomUUID } from "node:crypto"
import type { ServerContext } from "@modelcontextprotocol/server"
import { ascending } from "../../platform/util/id.ts"
import type { PermissionAsked } from "../../runtime/bus/events.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import { ProgressReporter } from "./progress.ts"

export type Step =
  | { readonly kind: "settled"; readonly settlement: Settlement }
  | { readonly kind: "ask"; readonly ask: PermissionAsked }

/** A call in flight; it outlives one MCP request while an ask waits for the client's answer. */
export class RunningCall {
  readonly callID = ascending("call")
  readonly abort = new AbortController()
  readonly progress = new ProgressReporter()
  readonly settled: Promise<Settlement>
  done = false
  /** A request is handling the call right now (a second retry with the same state is refused). */
  handling = false
  /** Whether a request of the call asked for progress. */
  reporting = false
  /** The `requestState` while an ask waits for the client: unguessable, and only known to this session. */
  token: string | undefined
  /** The ask shown to the client, until its answer comes back. */
  presented: PermissionAsked | undefined
  /** Set when this surface rejected an ask the client could not show: the error says how to allow it. */
  fallbackError: string | undefined
  readonly #asks: PermissionAsked[] = []
  readonly #signals = new WeakSet<AbortSignal>()
  #wake: (() => void) | undefined
  #answerTimer: ReturnType<typeof setTimeout> | undefined

  constructor(start: (call: RunningCall) => Promise<Settlement>) {
    this.settled = start(this)
    const finished = () => {
      this.done = true
      this.#wake?.()
    }
    this.settled.then(finished, finished)
  }

  /**
   * Binds a request to the call: its cancellation aborts the call, its progress token gets progress.
   * Returns whether the request asked for progress.
   */
  attach(ctx: ServerContext): boolean {
    const { signal } = ctx.mcpReq
    if (!this.#signals.has(signal)) {
      this.#signals.add(signal)
      if (signal.aborted) this.abort.abort(signal.reason)
      else signal.addEventListener("abort", () => this.abort.abort(signal.reason), { once: true })
    }
    const token = ctx.mcpReq._meta?.progressToken
    this.progress.attach(token === undefined ? undefined : { token, notify: ctx.mcpReq.notify })
    return token !== undefined
  }

  asked(ask: PermissionAsked): void {
    this.#asks.push(ask)
    this.#wake?.()
  }

  /** The settlement, or the next ask that is still waiting for a reply, whichever comes first. */
  async next(pending: (ask: PermissionAsked) => boolean): Promise<Step> {
    for (;;) {
      if (this.done) return { kind: "settled", settlement: await this.settled }
      const ask = this.#asks.shift()
      if (ask) {
        if (pending(ask)) return { kind: "ask", ask }
        continue
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
      this.#wake = undefined
    }
  }

  /** Shows the ask to the client and waits for its answer; with none in time, `expire` runs. */
  present(ask: PermissionAsked, timeoutMs: number, expire: () => void): string {
    this.presented = ask
    this.token = randomUUID()
    this.#answerTimer = setTimeout(expire, timeoutMs)
    this.#answerTimer.unref?.()
    return this.token
  }

  /** The client came back (or never will): the ask it was shown, if any. */
  resumed(): PermissionAsked | undefined {
    if (this.#answerTimer) clearTimeout(this.#answerTimer)
    this.#answerTimer = undefined
    this.token = undefined
    const ask = this.presented
    this.presented = undefined
    return ask
  }
}
