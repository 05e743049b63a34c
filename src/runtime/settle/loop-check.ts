// The doom-loop guard as one call meets it. A call that changes things is judged before it runs; a
// read-only call runs first and is a loop only if it answered as the calls it repeats did, so a file
// changed since the last read is never refused (running it costs nothing a refusal would have saved).

import type { ToolState } from "../../platform/store/part.ts"
import { isPermissionError } from "../permission/errors.ts"
import type { PermissionService } from "../permission/service.ts"
import {
  answerOf,
  type DoomLoop,
  type DoomLoopGuard,
  doomLoopAsk,
  type Recorded,
  recordOf,
} from "./doom-loop.ts"
import * as Message from "./messages.ts"
import type { CallRequest } from "./types.ts"

export interface LoopCheckOptions {
  readonly guard: DoomLoopGuard
  readonly permission: PermissionService
  readonly request: CallRequest
  /** The registered name the call resolved to. */
  readonly tool: string
  /** The arguments after the `tool.execute.before` hooks. */
  readonly input: unknown
  readonly readOnly: boolean
  readonly signal: AbortSignal
}

/** One call's meeting with the guard: `before` it runs, `after` it answered, `remember` once settled. */
export class LoopCheck {
  readonly #options: LoopCheckOptions
  /** What the call answered (its whole text, before bounding) and whether the tool called it a poll. */
  #answer: { text?: string; poll: boolean } = { poll: false }
  /**
   * What `after` judged a completed answer as: its attachments' URLs and the digests taken. `remember`
   * reuses them for the same answer instead of joining and hashing the whole text again.
   */
  #judged: { readonly urls: readonly string[]; readonly recorded: Recorded } | undefined
  /**
   * The call's place among its session's calls, taken when it is made: it is judged against, and kept
   * after, the calls made before it, whatever order calls running side by side finish in.
   */
  readonly #ticket: number

  constructor(options: LoopCheckOptions) {
    this.#options = options
    this.#ticket = options.guard.begin(options.request.sessionID, options.request.callID)
  }

  /** A call that changes things: the refusal, when the session's recent calls show it looping. */
  async before(): Promise<string | undefined> {
    const { guard, request, tool, input, readOnly } = this.#options
    if (readOnly) return undefined
    const loop = guard.check(request.sessionID, { tool, input }, this.#ticket, request.parentCallID)
    return loop ? this.#ask(loop) : undefined
  }

  /** The tool called this answer a poll (a job's status): polling again is never a loop. */
  poll(poll: boolean): void {
    this.#answer.poll = poll
  }

  /** The whole text the call answered, which the guard remembers (a cut one names a new file each time). */
  answered(text: string): void {
    this.#answer.text = text
  }

  /**
   * A read-only call that answered `answer` as the calls it repeats did: the refusal, if refused.
   * `urls`: the attachments' URLs when `answer` is a completed call's (`completedAnswer` of the text
   * given to `answered` and of them).
   */
  async after(answer: string, urls?: readonly string[]): Promise<string | undefined> {
    const { guard, request, tool, input, readOnly } = this.#options
    if (!readOnly || this.#answer.poll) return undefined
    const recorded = recordOf({ tool, input, answer })
    if (urls) this.#judged = { urls, recorded }
    const loop = guard.checkRecorded(request.sessionID, recorded, this.#ticket, request.parentCallID)
    return loop ? this.#ask(loop) : undefined
  }

  /**
   * Remembers what the settled call answered (not a refusal's reason, not an interruption), in its
   * place; a call with no answer gives its place back. Called once, whatever way the call ends.
   */
  remember(state: ToolState): void {
    const { guard, request, tool, input } = this.#options
    const judged = this.#judged
    if (judged && state.status === "completed" && this.#answer.text !== undefined && !this.#answer.poll) {
      const urls = (state.attachments ?? []).map((file) => file.url)
      if (urls.length === judged.urls.length && urls.every((url, i) => url === judged.urls[i])) {
        guard.record(request.sessionID, judged.recorded, this.#ticket)
        return
      }
    }
    const whole = this.#answer.text !== undefined && state.status === "completed"
    const text = answerOf(whole ? { ...state, output: this.#answer.text! } : state)
    if (text === undefined) {
      // Interrupted or refused: no answer.
      guard.end(request.sessionID, this.#ticket)
      return
    }
    guard.record(request.sessionID, { tool, input, answer: text, poll: this.#answer.poll }, this.#ticket)
  }

  /**
   * Asks `doom_loop` about a loop the guard found. Returns the model-visible reason when the loop must
   * stop the turn: what repeated, the rule that decided and how to change it (see `Message.loopRefused`).
   */
  async #ask(loop: DoomLoop): Promise<string | undefined> {
    const { guard, permission, request, tool, input, signal } = this.#options
    const call = { tool, input }
    const ask = doomLoopAsk(loop, call)
    try {
      await permission.ask(
        {
          sessionID: request.sessionID,
          agent: request.agent,
          permission: ask.permission,
          patterns: [...ask.patterns],
          always: [...(ask.always ?? ask.patterns)],
          metadata: ask.metadata ?? {},
          tool: { messageID: request.messageID, callID: request.callID, name: tool },
          input,
        },
        { signal },
      )
      return undefined
    } catch (error) {
      if (!isPermissionError(error)) throw error
      return Message.loopRefused({ loop, call, threshold: guard.threshold, error })
    }
  }
}
