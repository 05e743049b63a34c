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
  /** Writes `text` (to stderr) as part of the prompt, which `erase` takes back. */
  write(text: string): void
  /** Writes `prompt` (to stderr) and reads one line, or what ended the prompt instead. */
  read(prompt: string): Promise<Typed>
  /**
   * Erases what the prompt showed (its text, the lines typed, the prompt line) and writes `note` on one
   * line in its place: the prompt was closed by something other than the person at it.
   */
  erase(note: string): void
  close(): void
}

/** The terminal rows `text` takes from column 0 on a terminal `columns` wide, and the column it ends at. */
export function rowsOf(text: string, columns: number, column = 0): { rows: number; column: number } {
  let rows = 0
  // Colour and cursor codes take no room.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is stripped
  for (const char of text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")) {
    if (char === "\n") {
      rows++
      column = 0
    } else if (char === "\r") column = 0
    else if (++column > columns) {
      rows++
      column = 1
    }
  }
  return { rows, column }
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
  // Where the prompt's text has got to, so `erase` knows how many rows to take back.
  const columns = Math.max(1, (io.stderr as { columns?: number }).columns ?? 80)
  let rows = 0
  let column = 0
  /** The prompt of a read that has not ended with a line: on the screen, on the cursor's row. */
  let asked: string | undefined
  const advance = (text: string) => {
    const moved = rowsOf(text, columns, column)
    rows += moved.rows
    column = moved.column
  }
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
    write(text) {
      io.stderr.write(text)
      advance(text)
    },
    async read(prompt) {
      // 2. Already ended.
      if (key) return { kind: key }
      if (signal?.aborted) return { kind: "withdrawn" }
      asked = prompt
      try {
        const text = await rl.question(prompt, { signal: ended })
        // The line as it stood on the screen, and the Enter that ended it.
        advance(`${prompt}${text}\n`)
        asked = undefined
        return { kind: "line", text }
      } catch (error) {
        if (!key && !signal?.aborted) throw error
        return key ? { kind: key } : { kind: "withdrawn" }
      }
    },
    erase(note) {
      // Up to the prompt's first row (a prompt line being read may wrap too), then everything from
      // there down; the note in its place.
      const up = rows + (asked === undefined ? 0 : rowsOf(asked + rl.line, columns, column).rows)
      io.stderr.write(`${up > 0 ? `\u001b[${up}A` : ""}\r\u001b[J${note}\n`)
      rows = 0
      column = 0
      asked = undefined
    },
    close() {
      closing = true
      rl.close()
    },
  }
}
