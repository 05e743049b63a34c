import { countNewlines } from "../../text/newlines.ts"
import { findSignals, SIGNAL_CAPS, type Signal } from "../../text/signals.ts"

/** The start of a line is enough to recognise a signal; the rest of a huge line is not kept. */
const MAX_PENDING = 4096

/**
 * Finds error and summary lines in output that streams past in pieces and is not kept: the part of a
 * command's output that leaves the in-memory tail. Lines are numbered from 1 across all pieces; pieces
 * may split lines anywhere. Keeps the latest signals within the same caps as the output bounding.
 */
export class SignalScanner {
  readonly #firstLine: number
  #pending = ""
  #newlines = 0
  #kept: Signal[] = []
  #keptBytes = 0

  /** `firstLine`: the number of the first line pushed (1 unless scanning from the middle of a file). */
  constructor(firstLine = 1) {
    this.#firstLine = firstLine
  }

  /** Feeds the next piece of output. */
  push(text: string): void {
    const first = text.indexOf("\n")
    if (first === -1) {
      this.#pending = capped(this.#pending + text)
      return
    }
    const line = this.#pending + text.slice(0, first)
    this.#keep(findSignals(line, { start: 0, end: line.length, firstLine: this.#firstLine + this.#newlines }))
    this.#newlines++
    const last = text.lastIndexOf("\n")
    if (last > first) {
      this.#keep(
        findSignals(text, { start: first + 1, end: last, firstLine: this.#firstLine + this.#newlines }),
      )
      this.#newlines += countNewlines(text, first + 1, last + 1)
    }
    this.#pending = capped(text.slice(last + 1))
  }

  /** Newlines seen so far: the piece after the last one starts line `newlines + 1`. */
  get newlines(): number {
    return this.#newlines
  }

  /** The start of the unfinished last line, handed back so it can be scanned together with its end. */
  takePending(): string {
    const pending = this.#pending
    this.#pending = ""
    return pending
  }

  /** The signals found so far, in order. */
  signals(): Signal[] {
    return [...this.#kept]
  }

  #keep(found: readonly Signal[]): void {
    for (const signal of found) {
      this.#kept.push(signal)
      this.#keptBytes += Buffer.byteLength(signal.text)
    }
    while (this.#kept.length > SIGNAL_CAPS.maxLines || this.#keptBytes > SIGNAL_CAPS.maxBytes) {
      this.#keptBytes -= Buffer.byteLength(this.#kept.shift()!.text)
    }
  }
}

/** Joins two runs of signals (earlier first) and keeps the latest within the caps. */
export function mergeSignals(earlier: readonly Signal[], later: readonly Signal[]): Signal[] {
  const all = [...earlier, ...later]
  let bytes = all.reduce((sum, signal) => sum + Buffer.byteLength(signal.text), 0)
  while (all.length > SIGNAL_CAPS.maxLines || bytes > SIGNAL_CAPS.maxBytes) {
    bytes -= Buffer.byteLength(all.shift()!.text)
  }
  return all
}

function capped(text: string): string {
  return text.length > MAX_PENDING ? text.slice(0, MAX_PENDING) : text
}
