// A call of an MCP connection in flight: it outlives one MCP request while an ask waits for the
// client's answer, and carries what the session needs to resume it.
import { randomUUID } from "node:crypto"
import type { ServerContext } from "@modelcontextprotocol/server"
import type { PermissionAsked } from "../../runtime/bus/events.ts"
import type { QuestionRequest } from "../../runtime/question/question.ts"
import { mintCallID } from "../../runtime/settle/fresh-call-ids.ts"
import type { Settlement } from "../../runtime/settle/settle.ts"
import { ProgressReporter } from "./progress.ts"

/** What a call waits on the person for: a permission ask, or a tool's questions. */
export type Prompt =
  | { readonly kind: "permission"; readonly ask: PermissionAsked }
  | { readonly kind: "question"; readonly request: QuestionRequest }

export type Step =
  | { readonly kind: "settled"; readonly settlement: Settlement }
  | { readonly kind: "prompt"; readonly prompt: Prompt }

/** The agent a call started as, and how many agent changes this process had made by then (`SessionAgents.changes`). */
export interface AgentAtStart {
  readonly agent: string
  readonly changes: number
}

/** A call in flight; it outlives one MCP request while an ask waits for the client's answer. */
export class RunningCall {
  readonly callID = mintCallID()
  readonly abort = new AbortController()
  readonly progress = new ProgressReporter()
  readonly settled: Promise<Settlement>
  /** The agent the call started as (the listing follows a switch the call itself made). */
  readonly agentAtStart: AgentAtStart
  done = false
  /** A request is handling the call right now (a second retry with the same state is refused). */
  handling = false
  /** Whether a request of the call asked for progress. */
  reporting = false
  /** The `requestState` while an ask waits for the client: unguessable, and only known to this session. */
  token: string | undefined
  /** The ask or the questions shown to the client, until its answer comes back. */
  presented: Prompt | undefined
  /** Set when this surface rejected an ask the client could not show: the error says how to allow it. */
  fallbackError: string | undefined
  readonly #prompts: Prompt[] = []
  readonly #signals = new WeakSet<AbortSignal>()
  #wake: (() => void) | undefined
  #answerTimer: ReturnType<typeof setTimeout> | undefined

  constructor(agentAtStart: AgentAtStart, start: (call: RunningCall) => Promise<Settlement>) {
    this.agentAtStart = agentAtStart
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
    this.#waitFor({ kind: "permission", ask })
  }

  questioned(request: QuestionRequest): void {
    this.#waitFor({ kind: "question", request })
  }

  #waitFor(prompt: Prompt): void {
    this.#prompts.push(prompt)
    this.#wake?.()
  }

  /** The settlement, or the next ask or questions still waiting for an answer, whichever comes first. */
  async next(pending: (prompt: Prompt) => boolean): Promise<Step> {
    for (;;) {
      if (this.done) return { kind: "settled", settlement: await this.settled }
      const prompt = this.#prompts.shift()
      if (prompt) {
        if (pending(prompt)) return { kind: "prompt", prompt }
        continue
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
      this.#wake = undefined
    }
  }

  /**
   * Shows the ask or the questions to the client and waits for its answer; with none in time, `expire`
   * runs. The request that carries them gets its response now, so progress waits for the retry's token.
   */
  present(prompt: Prompt, timeoutMs: number, expire: () => void): string {
    this.progress.attach(undefined)
    this.presented = prompt
    this.token = randomUUID()
    this.#answerTimer = setTimeout(expire, timeoutMs)
    this.#answerTimer.unref?.()
    return this.token
  }

  /** The client came back (or never will): the ask or the questions it was shown, if any. */
  resumed(): Prompt | undefined {
    if (this.#answerTimer) clearTimeout(this.#answerTimer)
    this.#answerTimer = undefined
    this.token = undefined
    const prompt = this.presented
    this.presented = undefined
    return prompt
  }
}
