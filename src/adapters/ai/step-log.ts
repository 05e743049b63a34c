// The model steps of one stream as the processor saw them: each step's text, the calls it made (each in
// the step it started in), its finish reason, and, when the provider sent any, its reasoning and the
// provider's metadata in the order they came (what a replay must send back).
import type { FinishReason, ProviderMetadata } from "ai"

/**
 * One item of a step as the provider sent it, for replay: reasoning (Anthropic thinking with its
 * `signature`, redacted thinking's `redactedData`, OpenAI reasoning items' `itemId` and
 * `reasoningEncryptedContent`), text, and calls (Gemini's `thoughtSignature`), each with the metadata
 * the provider attached.
 */
export type StepContent =
  | { type: "reasoning"; text: string; providerMetadata?: ProviderMetadata }
  | { type: "text"; text: string; providerMetadata?: ProviderMetadata }
  | { type: "tool-call"; callID: string; providerMetadata?: ProviderMetadata }

/** One model step as the processor saw it: its text and the calls it made, in order. */
export interface ProcessedStep {
  text: string
  calls: { callID: string; tool: string }[]
  finishReason?: FinishReason
  /**
   * The step's reasoning, text and calls in order with the provider's metadata; present only when the
   * step has reasoning or metadata (otherwise `text` then `calls` is the whole step).
   */
  content?: StepContent[]
}

type Streamed = Extract<StepContent, { type: "reasoning" | "text" }>

export class StepLog {
  readonly steps: ProcessedStep[] = []
  readonly #noted = new Set<string>()
  /** Every step's items in order, kept whether or not the step carries anything worth replaying. */
  readonly #content = new Map<ProcessedStep, StepContent[]>()
  /** Reasoning and text blocks still streaming, by the stream's block id. */
  readonly #open = new Map<string, Streamed>()

  /** A new step begins (`start-step`). */
  start(): void {
    this.#open.clear()
    this.steps.push({ text: "", calls: [] })
  }

  /** The step parts arrive in now (one is begun if the stream sent none). */
  current(): ProcessedStep {
    let step = this.steps.at(-1)
    if (!step) {
      step = { text: "", calls: [] }
      this.steps.push(step)
    }
    return step
  }

  /** Adds the call to the current step (once: a call belongs to the step it started in). */
  note(callID: string, tool: string): void {
    if (this.#noted.has(callID)) return
    this.#noted.add(callID)
    const step = this.current()
    step.calls.push({ callID, tool })
    this.#items(step).push({ type: "tool-call", callID })
  }

  /** The provider's metadata of a call (`tool-call`): Gemini's thought signature, OpenAI's item id. */
  callMetadata(callID: string, metadata: ProviderMetadata | undefined): void {
    if (!hasKeys(metadata)) return
    for (const step of this.steps) {
      const item = this.#content.get(step)?.find((i) => i.type === "tool-call" && i.callID === callID)
      if (!item) continue
      item.providerMetadata = metadata
      this.#keep(step)
      return
    }
  }

  /**
   * A reasoning or text block starts, grows or ends (`*-start`, `*-delta`, `*-end`). Metadata given
   * replaces what the block had (as the AI SDK keeps it): Anthropic sends the signature in a late delta.
   */
  block(
    type: Streamed["type"],
    id: string,
    change: { readonly text?: string; readonly metadata?: ProviderMetadata | undefined },
  ): void {
    const step = this.current()
    const key = `${type}:${id}`
    const item: Streamed = this.#open.get(key) ?? { type, text: "" }
    if (!this.#open.has(key)) {
      this.#open.set(key, item)
      this.#items(step).push(item)
    }
    if (change.text) {
      item.text += change.text
      if (type === "text") step.text += change.text
    }
    if (hasKeys(change.metadata)) item.providerMetadata = change.metadata
    if (type === "reasoning" || item.providerMetadata) this.#keep(step)
  }

  /** A block ended: later parts with its id start a new one. */
  endBlock(type: Streamed["type"], id: string, metadata: ProviderMetadata | undefined): void {
    this.block(type, id, { metadata })
    this.#open.delete(`${type}:${id}`)
  }

  #items(step: ProcessedStep): StepContent[] {
    let items = this.#content.get(step)
    if (!items) {
      items = []
      this.#content.set(step, items)
    }
    return items
  }

  /** The step carries reasoning or metadata: its items (the same array, still growing) go with it. */
  #keep(step: ProcessedStep): void {
    step.content = this.#items(step)
  }
}

function hasKeys(metadata: ProviderMetadata | undefined): metadata is ProviderMetadata {
  return metadata !== undefined && metadata !== null && Object.keys(metadata).length > 0
}
