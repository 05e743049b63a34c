// The model steps of one stream as the processor saw them: each step's text, the calls it made (each in
// the step it started in) and its finish reason.
import type { FinishReason } from "ai"

/** One model step as the processor saw it: its text and the calls it made, in order. */
export interface ProcessedStep {
  text: string
  calls: { callID: string; tool: string }[]
  finishReason?: FinishReason
}

export class StepLog {
  readonly steps: ProcessedStep[] = []
  readonly #noted = new Set<string>()

  /** A new step begins (`start-step`). */
  start(): void {
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
    this.current().calls.push({ callID, tool })
  }
}
