import type { FinishReason, TextStreamPart, ToolSet } from "ai"
import { CallSettledError, interrupt, isFinal } from "../../platform/store/journal.ts"
import { advance, asInput, type ToolPart, type ToolState } from "../../platform/store/part.ts"
import type { Store } from "../../platform/store/store.ts"
import type { FilePart } from "../../platform/text/content.ts"
import type { Bus } from "../../runtime/bus/bus.ts"
import type { CallEntry, Calls } from "./calls.ts"
import { INVALID, matchCase } from "./repair.ts"

/** How long calls in flight get to finish once the stream ended before they are marked interrupted. */
export const CLEANUP_GRACE_MS = 250

export interface ProcessorOptions {
  /** Where parts are persisted and published. */
  readonly toolbelt: { readonly store: Store; readonly bus: Bus }
  /** The tool set the stream was produced with (`toAISDKTools`): its calls, ids and offered names. */
  readonly tools: {
    readonly calls: Calls
    readonly sessionID: string
    readonly messageID: string
    readonly activeTools: readonly string[]
  }
  /** Wait for calls in flight at the end (default 250 ms). */
  readonly graceMs?: number
}

/** One model step as the processor saw it: its text and the calls it made, in order. */
export interface ProcessedStep {
  text: string
  calls: { callID: string; tool: string }[]
  finishReason?: FinishReason
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
 * 1. `tool-input-start`: a `pending` part, persisted and published; `tool-input-delta` grows its
 *    `raw` (published); `tool-input-end` persists it; `tool-call` records the parsed input.
 * 2. Once `execute` dispatched the call, settlement continues that part (`partID`): `running` when the
 *    tool starts, `completed`/`error` at the end (the doom-loop check runs there too). The processor
 *    then leaves the call alone, so nothing is recorded twice or moved backwards.
 * 3. `tool-result` / `tool-error` / `tool-output-denied` for calls that never reached settlement
 *    (provider-executed tools, calls the SDK refused) are recorded here.
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
  readonly #steps: ProcessedStep[] = []
  #finishReason: FinishReason | undefined
  #aborted = false
  #error: unknown
  #finished = false
  /** Pending parts changed since the last write (written once per turn of the event loop). */
  readonly #dirty = new Set<CallEntry>()
  readonly #noted = new Set<string>()
  /** Final parts being journalled. */
  readonly #finals = new Set<Promise<void>>()
  #writeScheduled = false

  constructor(options: ProcessorOptions) {
    this.#store = options.toolbelt.store
    this.#bus = options.toolbelt.bus
    this.#calls = options.tools.calls
    this.#sessionID = options.tools.sessionID
    this.#messageID = options.tools.messageID
    this.#offered = options.tools.activeTools
    this.#graceMs = options.graceMs ?? CLEANUP_GRACE_MS
  }

  get steps(): readonly ProcessedStep[] {
    return this.#steps
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
        this.#steps.push({ text: "", calls: [] })
        return
      case "text-delta":
        this.#step().text += part.text
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
        return
      case "tool-result":
        this.#closeUnsettled(part.toolCallId, part.toolName, part.input, resultState(part.output))
        return
      case "tool-error":
        this.#closeUnsettled(part.toolCallId, part.toolName, part.input, {
          error: errorText(part.error),
        })
        return
      case "tool-output-denied":
        this.#closeUnsettled(part.toolCallId, part.toolName, undefined, {
          error: "The user denied this tool call.",
        })
        return
      case "finish-step":
        this.#step().finishReason = part.finishReason
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
    while (this.#finals.size) await Promise.all(this.#finals)
  }

  result(): ProcessResult {
    const last = this.#steps.at(-1)
    return {
      steps: this.#steps,
      text: last?.text ?? "",
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
    const entry = this.#calls.open(callID, this.#name(toolName, undefined))
    this.#note(callID, entry.tool)
    if (entry.part) return
    entry.part = this.#pendingPart(entry, callID, { status: "pending", input: {}, raw: "" })
    this.#persist(entry)
  }

  /** The part of a call whose input is still arriving, in this processor's session and message. */
  #pendingPart(entry: CallEntry, callID: string, state: ToolPart["state"]): ToolPart {
    return {
      id: entry.partID,
      sessionID: this.#sessionID,
      messageID: this.#messageID,
      type: "tool",
      callID,
      tool: entry.tool,
      state,
    }
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
    this.#persist(entry)
  }

  #toolCall(callID: string, toolName: string, input: unknown, invalid: boolean): void {
    const existing = this.#calls.get(callID)
    const name = existing?.tool ?? this.#name(toolName, input)
    this.#note(callID, name)
    if (existing && existing.phase !== "streaming") return
    const entry = this.#calls.open(callID, name)
    const raw = typeof input === "string" ? input : (JSON.stringify(input) ?? "")
    const previous = entry.part?.state.status === "pending" ? entry.part.state.raw : ""
    entry.part = this.#pendingPart(entry, callID, {
      status: "pending",
      input: invalid ? {} : asInput(input),
      raw: previous || raw,
    })
    this.#persist(entry)
  }

  /**
   * Publishes the pending part now and stores it (without a journal entry: settlement journals the
   * call once it runs) at the end of this turn of the event loop, so the updates a fast stream makes
   * in one turn cost one write, and a call dispatched meanwhile is not written at all.
   */
  #persist(entry: CallEntry): void {
    if (!entry.part) return
    this.#bus.publish("message.part.updated", { part: entry.part })
    this.#dirty.add(entry)
    if (this.#writeScheduled) return
    this.#writeScheduled = true
    setImmediate(() => this.#writePending())
  }

  #writePending(): void {
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

  // --- calls that never reached settlement, and cleanup ------------------------------------------

  #closeUnsettled(
    callID: string,
    toolName: string,
    input: unknown,
    outcome:
      | { error: string }
      | Omit<Extract<ToolState, { status: "completed" }>, "status" | "input" | "time">,
  ): void {
    const existing = this.#calls.get(callID)
    if (existing && (existing.phase === "dispatched" || existing.phase === "settled")) return
    const entry = existing ?? this.#calls.open(callID, this.#name(toolName, input))
    this.#note(callID, entry.tool)
    const base = this.#current(entry)
    if (isFinal(base)) return
    const now = Date.now()
    const time = { start: base.state.status === "running" ? base.state.time.start : now, end: now }
    const inputRecord =
      base.state.status === "pending" && input !== undefined ? asInput(input) : base.state.input
    const state: ToolState =
      "error" in outcome
        ? { status: "error", input: inputRecord, error: outcome.error, time }
        : { status: "completed", input: inputRecord, ...outcome, time }
    this.#final(entry, advance(base, state))
  }

  #interrupt(entry: CallEntry): void {
    const base = this.#current(entry)
    if (isFinal(base)) {
      entry.phase = "settled"
      return
    }
    this.#final(entry, interrupt(base, Date.now()))
  }

  /**
   * Journals a final part the processor decides (settlement did not, or could not). The write is
   * group-committed with the ones that follow in the stream (the call is closed at once, so nothing
   * else writes it); `finish()` waits for every such write, and the part is published once committed.
   */
  #final(entry: CallEntry, part: ToolPart): void {
    entry.phase = "settled"
    entry.part = part
    const write = this.#store.journal.finished(part).then(
      (stored) => {
        entry.part = stored
        this.#bus.publish("message.part.updated", { part: stored })
      },
      (error: unknown) => {
        // Settlement finished it meanwhile: its record stands.
        if (error instanceof CallSettledError) entry.part = error.part
        else this.#error ??= error
      },
    )
    this.#finals.add(write)
    void write.finally(() => this.#finals.delete(write))
  }

  /** The call's part as stored, else as the processor holds it, else a new pending part. */
  #current(entry: CallEntry): ToolPart {
    // Before dispatch only the processor writes the part: what it holds is what is (or will be) stored.
    if (entry.phase === "streaming" && entry.part) return entry.part
    return (
      this.#store.parts.get(this.#sessionID, entry.callID) ??
      entry.part ?? {
        id: entry.partID,
        sessionID: this.#sessionID,
        messageID: this.#messageID,
        type: "tool",
        callID: entry.callID,
        tool: entry.tool,
        state: { status: "pending", input: {}, raw: "" },
      }
    )
  }

  /** The name a call is recorded under: the model's, case repaired; an `invalid` call's meant tool. */
  #name(toolName: string, input: unknown): string {
    if (toolName === INVALID) {
      const meant = (input as { tool?: unknown } | undefined)?.tool
      if (typeof meant === "string" && meant) return matchCase(meant, this.#offered) ?? meant
      return INVALID
    }
    return matchCase(toolName, this.#offered) ?? toolName
  }

  /** Adds the call to the current step (once: a call belongs to the step it started in). */
  #note(callID: string, tool: string): void {
    if (this.#noted.has(callID)) return
    this.#noted.add(callID)
    this.#step().calls.push({ callID, tool })
  }

  #step(): ProcessedStep {
    let step = this.#steps.at(-1)
    if (!step) {
      step = { text: "", calls: [] }
      this.#steps.push(step)
    }
    return step
  }
}

/** A completed state from a tool result: toolbelt's `{title, output, metadata, attachments}`, or any value. */
function resultState(output: unknown): {
  output: string
  title: string
  metadata: Record<string, unknown>
  attachments?: readonly FilePart[]
} {
  if (
    typeof output === "object" &&
    output !== null &&
    typeof (output as { output?: unknown }).output === "string"
  ) {
    const value = output as { output: string; title?: unknown; metadata?: unknown; attachments?: unknown }
    return {
      output: value.output,
      title: typeof value.title === "string" ? value.title : "",
      metadata:
        typeof value.metadata === "object" && value.metadata !== null
          ? (value.metadata as Record<string, unknown>)
          : {},
      ...(Array.isArray(value.attachments) && value.attachments.length
        ? { attachments: value.attachments as FilePart[] }
        : {}),
    }
  }
  return {
    output: typeof output === "string" ? output : (JSON.stringify(output) ?? ""),
    title: "",
    metadata: {},
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === "string" ? error : (JSON.stringify(error) ?? String(error))
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")
}
