// One line read at a terminal prompt, told apart from the keys that mean something else: Ctrl+C stops
// the command, Ctrl+D declines. readline reads the terminal in raw mode, so neither arrives as a signal
// or an end of input; left to itself readline rejects the question with an AbortError, which nothing
// above it expects.
import { createInterface } from "node:readline/promises"
import type { IO } from "./io.ts"

/**
 * What the person did at the prompt: typed a line; pressed Ctrl+C (`interrupt`); pressed Ctrl+D on an
 * empty line or the input ended (`end`); or the prompt was `withdrawn` because what it asked about ended
 * first (the call was stopped).
 */
export type Typed =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "interrupt" }
  | { readonly kind: "end" }
  | { readonly kind: "withdrawn" }

export interface TerminalLines {
  /** Writes `prompt` (to stderr) and reads one line, or what ended the prompt instead. */
  read(prompt: string): Promise<Typed>
  close(): void
}

/**
 * Opens the terminal for one prompt's lines (stdin, echoed on stderr so stdout keeps only the command's
 * result). `signal` withdraws the prompt: a read in progress ends as `withdrawn`.
 * 1. Ctrl+C: readline emits "SIGINT" when someone listens (and then leaves the interface open);
 *    Ctrl+D on an empty line and the end of input close it. Either ends the read in progress.
 * 2. Once either happened, every later read ends the same way at once: the person already said.
 */
export function terminalLines(io: IO, signal?: AbortSignal): TerminalLines {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true })
  const pressed = new AbortController()
  let key: "interrupt" | "end" | undefined
  let closing = false
  // 1. The keys.
  rl.on("SIGINT", () => {
    key ??= "interrupt"
    pressed.abort()
  })
  rl.on("close", () => {
    if (!closing) key ??= "end"
    pressed.abort()
  })
  const ended = signal ? AbortSignal.any([pressed.signal, signal]) : pressed.signal
  return {
    async read(prompt) {
      // 2. Already ended.
      if (key) return { kind: key }
      if (signal?.aborted) return { kind: "withdrawn" }
      try {
        return { kind: "line", text: await rl.question(prompt, { signal: ended }) }
      } catch (error) {
        if (!key && !signal?.aborted) throw error
        return key ? { kind: key } : { kind: "withdrawn" }
      }
    },
    close() {
      closing = true
      rl.close()
    },
  }
}
