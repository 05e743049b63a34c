import type { FinishReason, TextStreamPart, ToolSet } from "ai"
import { interrupt, isFinal } from "../../platform/store/journal.ts"
import { asInput, type ToolPart } from "../../platform/store/part.ts"
import type { Store } from "../../platform/store/store.ts"
import type { Bus } from "../../runtime/bus/bus.ts"
import { pendingPart, recordedName } from "./call-part.ts"
import type { CallEntry, Calls } from "./calls.ts"
import { FinalPartWriter } from "./final-part-writer.ts"
import { type HostSource, hostOf } from "./host.ts"
import { PendingPartWriter } from "./pending-part-writer.ts"
import { type ProcessedStep, StepLog } from "./step-log.ts"
import { closedPart, errorText, resultOutcome, type ToolOutcome } from "./tool-outcome.ts"

/** How long calls in flight get to finish once the stream ended before they are marked interrupted. */
export const CLEANUP_GRACE_MS = 250

export interface ProcessorOptions {
  /** Where parts are persisted and published: the toolbelt, or just its store and bus. */
  readonly toolbelt: HostSource | { readonly store: Store; readonly bus: Bus }
  /** The tool set the stream was produced with (`toAISDKTools`): its calls, ids and offered names. */
  readonly tools: {
    readonly calls: Calls
    readonly sessionID: string
    readonly messageID: string
    readonly activeTools: readonly string[]
    /** Every name a call may use, deferred tools included (default: `activeTools`). */
    readonly known?: readonly string[]
  }
  /** Wait for calls in flight at the end (default 250 ms). */
  readonly graceMs?: number
}

export interface ProcessResult {
  readonly steps: readonly ProcessedStep[]
  /** The text of the last step (the model's answer when the turn finished). */
  readonly text: string
  readonly finishReason: FinishReason | undefined
  readonly aborted: boolean
  /** The first `error` part of the stream (a provider or model failure). */
  readonly error: unknown
  /** The final part of every call of the message, in the order the calls started. */
  readonly parts: readonly ToolPart[]
}

/**
 * Consumes the AI SDK's stream parts and drives each call's tool part (opencode's processor, with
 * settlement as the one writer once a call runs).
 *
 * 0. Text and reasoning go to the step log with the provider's metadata (signatures, item ids), and so
 *    does each call's metadata, in the order they came: replay sends them back (`step-log.ts`).
 * 1. `tool-input-start`: a `pending` part, persisted and published; `tool-input-delta` grows its
 *    `raw` (published); `tool-input-end` persists it; `tool-call` records the parsed input
 *    (`pending-part-writer.ts`: one store write per turn of the event loop).
 * 2. Once `execute` dispatched the call, settlement continues that part (`partID`): `running` when the
 *    tool starts, `completed`/`error` at the end (the doom-loop check runs there too). The processor
 *    then leaves the call alone, so nothing is recorded twice or moved backwards.
 * 3. `tool-result` / `tool-error` / `tool-output-denied` for calls that never reached settlement
 *    (provider-executed tools, calls the SDK refused) are recorded here (`tool-outcome.ts`, journalled by
 *    `final-part-writer.ts`).
 * 4. At the end of the stream (finished, aborted or failed): wait up to 250 ms for calls in flight,
 *    then every call still open ends `error` "Tool execution aborted" with `metadata.interrupted`.
 */
export class StreamProcessor {
  readonly #store: Store
  readonly #bus: Bus
  readonly #calls: Calls
  readonly #sessionID: string
  readonly #messageID: string
  readonly #offered: readonly string[]
  readonly #graceMs: number
  readonly #steps = new StepLog()
  readonly #pending: PendingPartWriter
  readonly #finals: FinalPartWriter
  #finishReason: FinishReason | undefined
  #aborted = false
  #error: unknown
  #finished = false

  constructor(options: ProcessorOptions) {
    const records = "directory" in options.toolbelt ? hostOf(options.toolbelt) : options.toolbelt
    this.#store = records.store
    this.#bus = records.bus
    this.#calls = options.tools.calls
    this.#sessionID = options.tools.sessionID
    this.#messageID = options.tools.messageID
    // A call's name is recorded in the case of a tool it may call (deferred ones too).
    this.#offered = options.tools.known ?? options.tools.activeTools
    this.#graceMs = options.graceMs ?? CLEANUP_GRACE_MS
    this.#pending = new PendingPartWriter({ store: this.#store, bus: this.#bus })
    this.#finals = new FinalPartWriter({
      store: this.#store,
      bus: this.#bus,
      onError: (error) => {
        this.#error ??= error
      },
    })
  }

  get steps(): readonly ProcessedStep[] {
    return this.#steps.steps
  }

  /** Handles every part of `stream`, then cleans up (also when the stream throws). */
  async consume(
    stream: AsyncIterable<TextStreamPart<ToolSet>>,
    onPart?: (part: TextStreamPart<ToolSet>) => void,
  ): Promise<ProcessResult> {
    try {
      for await (const part of stream) {
        await this.handle(part)
        onPart?.(part)
      }
    } catch (error) {
      this.#error ??= error
      if (isAbortError(error)) this.#aborted = true
    } finally {
      await this.finish()
    }
    return this.result()
  }

  async handle(part: TextStreamPart<ToolSet>): Promise<void> {
    switch (part.type) {
      case "start-step":
        this.#steps.start()
        return
      case "text-start":
      case "reasoning-start":
        this.#steps.block(part.type === "text-start" ? "text" : "reasoning", part.id, {
          metadata: part.providerMetadata,
        })
        return
      case "text-delta":
      case "reasoning-delta":
        this.#steps.block(part.type === "text-delta" ? "text" : "reasoning", part.id, {
          text: part.text,
          metadata: part.providerMetadata,
        })
        return
      case "text-end":
      case "reasoning-end":
        this.#steps.endBlock(part.type === "text-end" ? "text" : "reasoning", part.id, part.providerMetadata)
        return
      case "tool-input-start":
        this.#inputStart(part.id, part.toolName)
        return
      case "tool-input-delta":
        this.#inputDelta(part.id, part.delta)
        return
      case "tool-input-end":
        this.#inputEnd(part.id)
        return
      case "tool-call":
        this.#toolCall(part.toolCallId, part.toolName, part.input, part.invalid === true)
        this.#steps.callMetadata(part.toolCallId, part.providerMetadata)
        return
      case "tool-result":
        this.#closeUnsettled({
          callID: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          outcome: resultOutcome(part.output),
        })
        return
      case "tool-error":
        this.#closeUnsettled({
          callID: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          outcome: { error: errorText(part.error) },
        })
        return
      case "tool-output-denied":
        this.#closeUnsettled({
          callID: part.toolCallId,
          toolName: part.toolName,
          input: undefined,
          outcome: { error: "The user denied this tool call." },
        })
        return
      case "finish-step":
        this.#steps.current().finishReason = part.finishReason
        return
      case "finish":
        this.#finishReason = part.finishReason
        return
      case "abort":
        this.#aborted = true
        return
      case "error":
        this.#error ??= part.error
        if (isAbortError(part.error)) this.#aborted = true
        return
      default:
        // Approval parts are not used: toolbelt asks permission inside settlement (`permission.asked`).
        return
    }
  }

  /**
   * Cleanup after the stream: waits up to the grace period for calls in flight, then closes every call
   * still open as interrupted. Safe to call more than once.
   */
  async finish(): Promise<void> {
    if (this.#finished) return
    this.#finished = true
    const inFlight = this.#calls.inFlight()
    if (inFlight.length) {
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        Promise.all(inFlight.map((entry) => entry.settled)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.#graceMs)
        }),
      ])
      clearTimeout(timer)
    }
    for (const entry of this.#calls.all()) {
      if (entry.phase === "settled") continue
      this.#interrupt(entry)
    }
    await this.#finals.drain()
  }

  result(): ProcessResult {
    const steps = this.#steps.steps
    return {
      steps,
      text: steps.at(-1)?.text ?? "",
      finishReason: this.#finishReason,
      aborted: this.#aborted,
      error: this.#error,
      parts: this.#calls
        .all()
        .map((entry) => this.#store.parts.get(this.#sessionID, entry.callID) ?? entry.part)
        .filter((part): part is ToolPart => part !== undefined),
    }
  }

  // --- before dispatch: the processor owns the pending part -------------------------------------

  #inputStart(callID: string, toolName: string): void {
    const existing = this.#calls.get(callID)
    if (existing && existing.phase !== "streaming") return
    const entry = this.#calls.open(callID, recordedName(toolName, undefined, this.#offered))
    this.#steps.note(callID, entry.tool)
    if (entry.part) return
    entry.part = this.#pendingPart(entry)
    this.#pending.persist(entry)
  }

  #inputDelta(callID: string, delta: string): void {
    const entry = this.#calls.get(callID)
    if (entry?.phase !== "streaming" || entry.part?.state.status !== "pending") return
    const state = entry.part.state
    entry.part = { ...entry.part, state: { ...state, raw: state.raw + delta } }
    this.#bus.publish("message.part.updated", { part: entry.part })
  }

  #inputEnd(callID: string): void {
    const entry = this.#calls.get(callID)
    if (entry?.phase !== "streaming" || !entry.part) return
    this.#pending.persist(entry)
  }

  #toolCall(callID: string, toolName: string, input: unknown, invalid: boolean): void {
    const existing = this.#calls.get(callID)
    const name = existing?.tool ?? recordedName(toolName, input, this.#offered)
    this.#steps.note(callID, name)
    if (existing && existing.phase !== "streaming") return
    const entry = this.#calls.open(callID, name)
    const raw = typeof input === "string" ? input : (JSON.stringify(input) ?? "")
    const previous = entry.part?.state.status === "pending" ? entry.part.state.raw : ""
    entry.part = this.#pendingPart(entry, {
      status: "pending",
      input: invalid ? {} : asInput(input),
      raw: previous || raw,
    })
    this.#pending.persist(entry)
  }

  /** The part of a call whose input is still arriving, in this processor's session and message. */
  #pendingPart(entry: CallEntry, state?: ToolPart["state"]): ToolPart {
    return pendingPart({ entry, sessionID: this.#sessionID, messageID: this.#messageID, state })
  }

  // --- calls that never reached settlement, and cleanup ------------------------------------------

  /** Records how a call settlement never saw ended (its `tool-result`, `tool-error` or denial). */
  #closeUnsettled(call: { callID: string; toolName: string; input: unknown; outcome: ToolOutcome }): void {
    const { callID, input, outcome } = call
    const existing = this.#calls.get(callID)
    if (existing && (existing.phase === "dispatched" || existing.phase === "settled")) return
    const entry = existing ?? this.#calls.open(callID, recordedName(call.toolName, input, this.#offered))
    this.#steps.note(callID, entry.tool)
    const base = this.#current(entry)
    if (isFinal(base)) return
    this.#finals.write(entry, closedPart({ base, input, outcome, now: Date.now() }))
  }

  #interrupt(entry: CallEntry): void {
    const base = this.#current(entry)
    if (isFinal(base)) {
      entry.phase = "settled"
      return
    }
    this.#finals.write(entry, interrupt(base, Date.now()))
  }

  /** The call's part as stored, else as the processor holds it, else a new pending part. */
  #current(entry: CallEntry): ToolPart {
    // Before dispatch only the processor writes the part: what it holds is what is (or will be) stored.
    if (entry.phase === "streaming" && entry.part) return entry.part
    return this.#store.parts.get(this.#sessionID, entry.callID) ?? entry.part ?? this.#pendingPart(entry)
  }
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")
}
