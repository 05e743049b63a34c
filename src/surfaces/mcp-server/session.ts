import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  type ServerContext,
} from "@modelcontextprotocol/server"
import { parentCallID } from "../../compose/child-calls.ts"
import { promptEnd } from "../../compose/fleet.ts"
import { internals } from "../../compose/internals.ts"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import { logger } from "../../platform/util/log.ts"
import type { Event, PermissionAsked } from "../../runtime/bus/events.ts"
import type { AskFallback } from "../../runtime/config/mcp-settings.ts"
import type { QuestionRequest } from "../../runtime/question/question.ts"
import type { Turn } from "../../runtime/registry/registry.ts"
import type { TurnModel } from "../../runtime/tool/subagent-services.ts"
import { answerOf, fallbackRejection } from "./ask-form.ts"
import { CallLimitError, type Release, type SessionCalls } from "./call-gate.ts"
import { progressMessage } from "./progress.ts"
import { canElicit, formOf, isModern, keyOf } from "./prompt-forms.ts"
import { replyAsk, replyQuestions } from "./prompt-replies.ts"
import { knowsTitledEnums } from "./protocol-versions.ts"
import { questionReplyOf } from "./question-form.ts"
import { errorResult, notWaiting, toCallToolResult } from "./result.ts"
import { type AgentAtStart, type Prompt, RunningCall } from "./running-call.ts"

const log = logger("mcp")

export interface SessionOptions {
  readonly toolbelt: Toolbelt
  /** The toolbelt session every call of this connection belongs to. */
  readonly sessionID: string
  /** The connection's agent; a session switched to another (plan mode) runs as that one. */
  readonly agent: string
  /** What an ask becomes when the client cannot show it. */
  readonly ask: AskFallback
  /** How long a call waits for the client to come back with the answer to an ask. */
  readonly answerTimeoutMs: number
  /** The capabilities the client declared at `initialize` (2025-era connections). */
  readonly clientCapabilities: () => ClientCapabilities | undefined
  /** The revision negotiated at `initialize` (2025-era connections): what the forms may use. */
  readonly protocolVersion: () => string | undefined
  /** The client's model while it samples: calls carry it, so tools that need a model (task) use it. */
  readonly model?: () => TurnModel | undefined
  /**
   * Awaited when a call settled, before its result goes back (the listing follows a plan-mode switch).
   * Told the agent the call started as, and how many agent changes this process had made by then.
   */
  readonly settled?: (started: AgentAtStart) => Promise<void>
  /** The places this session's calls take: how many run at once, how many may wait. */
  readonly calls: SessionCalls
}

export interface CallRequest {
  readonly tool: string
  readonly args: unknown
  /** The registrations advertised to the client: a replaced tool is reported stale, never run. */
  readonly turn: Turn
  /** The tool declares an output schema. */
  readonly structured: boolean
}

/**
 * The calls of one MCP connection, all in one toolbelt session (its read ledger, todos and approvals).
 *
 * A call:
 * 1. A new request takes a place (`SessionCalls`: it may wait for one, or be refused with the limit
 *    and what to do), then starts `toolbelt.call` with a fresh call id, holding the place until the
 *    call ends; a retried request (its `requestState` names a waiting call) applies the client's
 *    answer to the ask it was shown.
 * 2. The request's cancellation aborts the call (and so kills its processes); its progress token
 *    receives the call's `ctx.metadata` updates as progress notifications.
 * 3. Wait for the settlement or the call's next permission ask.
 * 4. An ask, when the client supports elicitation, is shown as a form: on a 2025-era connection as
 *    an `elicitation/create` request, whose answer is the reply; on 2026-07-28 as an `input_required`
 *    result, the call waiting for the client's retry with the answer (aborted without one in time).
 *    Without elicitation, the `mcp.ask` fallback replies (allow once, or reject with an error that
 *    says how to allow it in config), or (`web`) leaves the ask to `toolbelt serve`'s page. Either
 *    way the call goes on to step 3.
 *    A tool's questions (the question flow) are shown as forms the same way, declining dismisses them;
 *    a client without elicitation cannot answer them, and the call says so (with `web`, the page
 *    answers them).
 * 5. The settlement becomes the result (text, images, structured content, `isError`).
 */
export class McpSession {
  readonly #options: SessionOptions
  /** Every call in flight, by call id. */
  readonly #calls = new Map<string, RunningCall>()
  /** The calls whose ask waits for the client, by their `requestState`. */
  readonly #waiting = new Map<string, RunningCall>()
  readonly #offAsks: () => void
  readonly #offQuestions: () => void
  /** Part updates are only followed while a call reports progress. */
  #offParts: (() => void) | undefined
  #reporting = 0
  #closed = false

  constructor(options: SessionOptions) {
    this.#options = options
    const { sessionID } = options
    this.#offAsks = options.toolbelt.subscribe("permission.asked", (event) => {
      // A subagent's ask comes from its own session, through the call of this one that started it.
      const ask = event.properties
      if (ask.sessionID === sessionID || ask.subagent?.root.sessionID === sessionID) this.#asked(ask)
    })
    this.#offQuestions = options.toolbelt.subscribe("question.asked", (event) => {
      if (event.properties.sessionID === sessionID) this.#questioned(event.properties)
    })
  }

  get sessionID(): string {
    return this.#options.sessionID
  }

  /** Calls in flight, including those waiting for the answer to an ask. */
  get running(): number {
    return this.#calls.size
  }

  async call(request: CallRequest, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    // 1. Start, or resume with the answer.
    const state = ctx.mcpReq.requestState()
    let call: RunningCall
    if (state !== undefined) {
      const waiting = typeof state === "string" ? this.#waiting.get(state) : undefined
      if (!waiting || typeof state !== "string") return notWaiting(this.#options.answerTimeoutMs)
      if (waiting.handling) return errorResult("This call is already being answered by another request.")
      call = waiting
      this.#waiting.delete(state)
      const prompt = call.resumed()
      if (prompt) this.#answer(prompt, ctx.mcpReq.inputResponses?.[keyOf(prompt)])
    } else {
      if (this.#closed) return errorResult("The MCP session is closed.")
      let release: Release
      try {
        release = await this.#options.calls.enter(ctx.mcpReq.signal)
      } catch (error) {
        if (error instanceof CallLimitError) return errorResult(error.message)
        return errorResult("The call was cancelled while it waited for a place to run.")
      }
      if (this.#closed) {
        release()
        return errorResult("The MCP session is closed.")
      }
      call = this.#start(request)
      call.settled.then(release, release)
    }

    // 2. Cancellation and progress.
    if (call.attach(ctx) && !call.reporting) {
      call.reporting = true
      this.#followParts(+1)
    }
    call.handling = true
    try {
      return await this.#settleOrAsk(call, request, ctx)
    } finally {
      call.handling = false
    }
  }

  /** Aborts every call of the connection, kills its background jobs, drops what the process holds for it. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#offAsks()
    this.#offQuestions()
    this.#offParts?.()
    this.#offParts = undefined
    for (const call of this.#calls.values()) {
      call.resumed()
      call.abort.abort(new Error("The MCP connection closed."))
    }
    this.#waiting.clear()
    // The connection was the session: its background jobs and what the process holds for it end with it.
    void this.#options.toolbelt.endSession(this.#options.sessionID)
  }

  async #settleOrAsk(
    call: RunningCall,
    request: CallRequest,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    for (;;) {
      // 3. Settlement or ask.
      const step = await call.next((prompt) => this.#isPending(prompt))
      if (step.kind === "settled") {
        // 5. The result, once the listing follows the agent the call may have switched to.
        this.#forget(call)
        await this.#options.settled?.(call.agentAtStart)
        const { settlement } = step
        // An ask this surface could not show ended the call: its own words say why and how to allow it.
        // Not when something else refused it (the loop guard, a person), whose words say who did.
        const fallback = call.fallbackError
        const error =
          settlement.status === "error" && fallback !== undefined && settlement.error.endsWith(fallback)
            ? fallback
            : undefined
        return toCallToolResult(settlement, { structured: request.structured, ...(error ? { error } : {}) })
      }
      // 4. The ask, or the questions.
      const { prompt } = step
      if (!canElicit(ctx, this.#options.clientCapabilities)) {
        // "web": asks and questions wait for the page of `toolbelt serve` (or a client of its API).
        if (this.#options.ask !== "web") {
          if (prompt.kind === "permission") this.#fallback(call, prompt.ask)
          else this.#cannotAsk(prompt.request)
        }
        continue
      }
      if (isModern(ctx)) {
        const token = call.present(prompt, this.#options.answerTimeoutMs, () => this.#expire(call))
        this.#waiting.set(token, call)
        return inputRequired({
          inputRequests: { [keyOf(prompt)]: inputRequired.elicit(formOf(prompt)) },
          requestState: token,
        })
      }
      await this.#elicit(call, prompt, ctx)
    }
  }

  /**
   * A 2025-era connection: the form goes to the client as an `elicitation/create` request of this
   * call's request, and its answer is the reply. A client that fails or does not answer in time
   * gets the ask rejected, and the error says so. When the ask ends otherwise first (answered on
   * another instance or surface, withdrawn), the request is cancelled (`notifications/cancelled`).
   */
  async #elicit(call: RunningCall, prompt: Prompt, ctx: ServerContext): Promise<void> {
    // Answered elsewhere (another instance, the page) or withdrawn: the form's request is cancelled.
    const id = prompt.kind === "permission" ? prompt.ask.id : prompt.request.id
    const end = promptEnd(internals(this.#options.toolbelt).bus, prompt.kind, id)
    if (!this.#isPending(prompt)) {
      end.stop()
      return
    }
    let result: unknown
    try {
      const form = formOf(prompt, { titledEnums: knowsTitledEnums(this.#options.protocolVersion()) })
      result = await ctx.mcpReq.elicitInput(form, {
        timeout: this.#options.answerTimeoutMs,
        signal: AbortSignal.any([call.abort.signal, end.signal]),
      })
    } catch (error) {
      if (call.abort.signal.aborted || end.signal.aborted) return
      const message = (error as Error).message
      if (prompt.kind === "question") {
        this.#cannotAsk(prompt.request, `the client could not show the questions: ${message}`)
        return
      }
      const { ask } = prompt
      call.fallbackError ??= `Permission "${ask.permission}" for ${ask.patterns.join(", ")} was not answered (the client could not show the ask: ${message}), so toolbelt rejected the call.`
      replyAsk(this.#options.toolbelt, ask, { reply: "reject", unanswered: call.fallbackError })
      return
    } finally {
      end.stop()
    }
    this.#answer(prompt, result)
  }

  /** Applies the client's answer to what it was shown. */
  #answer(prompt: Prompt, response: unknown): void {
    if (prompt.kind === "permission") replyAsk(this.#options.toolbelt, prompt.ask, answerOf(response))
    else replyQuestions(this.#options.toolbelt, prompt.request, questionReplyOf(prompt.request, response))
  }

  #start(request: CallRequest): RunningCall {
    const model = this.#options.model?.()
    const agents = internals(this.#options.toolbelt).store.sessionAgents
    const changes = agents.changes
    const agent = agents.get(this.#options.sessionID) ?? this.#options.agent
    const call = new RunningCall({ agent, changes }, (self) =>
      this.#options.toolbelt.call({
        tool: request.tool,
        input: request.args,
        sessionID: this.#options.sessionID,
        agent,
        callID: self.callID,
        abort: self.abort.signal,
        turn: request.turn,
        // The reply is written the moment the call settles; a read-only call's record commits after it.
        recordAfterReply: true,
        ...(model ? { extra: { model } } : {}),
      }),
    )
    this.#calls.set(call.callID, call)
    // Aborted while its ask waited for the client (a cancelled 2025-era request): nobody will come back.
    const finished = () => {
      if (call.presented && call.abort.signal.aborted) this.#expire(call)
    }
    call.settled.then(finished, finished)
    return call
  }

  /** A call nobody is waiting for any more: gone from the maps, no more progress. */
  #forget(call: RunningCall): void {
    call.progress.stop()
    this.#calls.delete(call.callID)
    if (call.token) this.#waiting.delete(call.token)
    if (call.reporting) {
      call.reporting = false
      this.#followParts(-1)
    }
  }

  /** The client never came back with an answer: the call is aborted and forgotten. */
  #expire(call: RunningCall): void {
    this.#forget(call)
    call.resumed()
    if (!call.done) call.abort.abort(new Error("The MCP client did not answer in time."))
  }

  #asked(ask: PermissionAsked): void {
    const callID = ask.subagent?.root.callID ?? ask.tool?.callID
    // A call made on behalf of another (a batch's) asks through the call that made it.
    const call = callID === undefined ? undefined : (this.#calls.get(callID) ?? this.#parentOf(callID))
    if (call) call.asked(ask)
    // A call that ended meanwhile (aborted: the engine withdrew the ask).
    else log.debug("permission ask for a call this MCP session does not run", { id: ask.id })
  }

  #questioned(request: QuestionRequest): void {
    const callID = request.tool?.callID
    // A call made on behalf of another (a batch's) asks through the call that made it.
    const call = callID === undefined ? undefined : (this.#calls.get(callID) ?? this.#parentOf(callID))
    if (call) call.questioned(request)
    // Questions asked outside a call of this connection are left to whoever else listens on the bus.
    else log.debug("questions for a call this MCP session does not run", { id: request.id })
  }

  #parentOf(callID: string): RunningCall | undefined {
    const parent = parentCallID(callID)
    return parent === undefined ? undefined : this.#calls.get(parent)
  }

  /** Follows the session's part updates while at least one call reports progress. */
  #followParts(delta: number): void {
    this.#reporting += delta
    if (this.#reporting > 0 && !this.#offParts && !this.#closed) {
      const { sessionID } = this.#options
      this.#offParts = this.#options.toolbelt.subscribe(
        "message.part.updated",
        (event: Event<"message.part.updated">) => {
          const { part } = event.properties
          if (part.sessionID !== sessionID || part.state.status !== "running") return
          this.#calls.get(part.callID)?.progress.update(progressMessage(part.state, part.tool))
        },
      )
    } else if (this.#reporting === 0 && this.#offParts) {
      this.#offParts()
      this.#offParts = undefined
    }
  }

  #isPending(prompt: Prompt): boolean {
    const { toolbelt, sessionID } = this.#options
    if (prompt.kind === "question")
      return toolbelt.questions.list(sessionID).some((request) => request.id === prompt.request.id)
    return toolbelt.permission.list(prompt.ask.sessionID).some((request) => request.id === prompt.ask.id)
  }

  /** Nobody can answer the questions here: the call fails saying why (the turn stops). */
  #cannotAsk(
    request: QuestionRequest,
    why = "this MCP client cannot show questions (it does not support elicitation)",
  ): void {
    replyQuestions(this.#options.toolbelt, request, { unanswered: why })
  }

  #fallback(call: RunningCall, ask: PermissionAsked): void {
    if (this.#options.ask === "allow") {
      replyAsk(this.#options.toolbelt, ask, { reply: "once" })
      return
    }
    call.fallbackError ??= fallbackRejection(ask, this.#options.toolbelt.directory)
    // No one was asked: the engine's error says so (a refused loop's message is built from it).
    replyAsk(this.#options.toolbelt, ask, { reply: "reject", unanswered: call.fallbackError })
  }
}
