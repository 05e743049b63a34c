import { StringDecoder } from "node:string_decoder"
import { cut } from "../../text/cut.ts"
import type { Limits } from "../../text/limits.ts"
import { countNewlines } from "../../text/newlines.ts"
import type { Signal } from "../../text/signals.ts"
import { ByteRing, charStart, countNewlineBytes } from "./ring.ts"
import { mergeSignals, SignalScanner } from "./scanner.ts"
import { Spool } from "./spool.ts"

/** How much of the tail the live progress shows (opencode's preview size). */
export const PREVIEW_CHARS = 30_000

export interface CaptureOptions {
  readonly limits: Limits
  /** The managed output store's directory, where output over the limits is spooled. */
  readonly storeDir: string
  /**
   * Keep all output on disk from the first byte, in place (a background job's log, read while it runs).
   * Otherwise the output is spooled only once it exceeds the limits.
   */
  readonly log?: boolean
}

/** The live preview: the last PREVIEW_CHARS characters, marked when older output is not shown. */
export function previewOf(tail: string, chars: number = PREVIEW_CHARS): string {
  return tail.length > chars ? `...\n\n${tail.slice(tail.length - chars)}` : tail
}

/** The bounded result of everything a command printed. */
export interface Captured {
  /** The whole output, or its tail within the limits when `truncated`. */
  readonly text: string
  readonly truncated: boolean
  /** The full output, when it was truncated and could be saved. */
  readonly outputPath?: string
  /** Why the full output could not be saved (the disk is full, ...). */
  readonly saveError?: string
  readonly totalBytes: number
  readonly totalLines: number
  /** Whole lines in `text`. */
  readonly keptLines: number
  /** Error and summary lines from the part that was cut, numbered as in the full output. */
  readonly signals: Signal[]
  /** The last PREVIEW_CHARS characters (what the live progress showed last). */
  readonly tail: string
}

/**
 * Everything a command prints, held in bounded memory whatever its size.
 *
 * - A byte ring keeps the tail: ~2× the byte limit (and enough for the live preview), grown on demand.
 *   Bytes that fall out of it are decoded and scanned for error and summary lines on the way out, so
 *   no string outlives the chunk it came from and the JavaScript heap stays small.
 * - Until the output passes a limit, the ring holds all of it. From then on all of it, from the first
 *   byte, is appended to a file in the output store, and `push` reports when the disk falls behind so
 *   the reader can pause the pipe instead of buffering.
 * - `finish` cuts the tail to the limits (the same rules as the rest of the runtime) and names the file.
 */
export class Capture {
  readonly #limits: Limits
  readonly #storeDir: string
  readonly #log: boolean
  readonly #ring: ByteRing
  /** Decodes the byte stream in order: evicted bytes first, the held tail at the end. */
  readonly #decoder = new StringDecoder("utf8")
  readonly #scanner = new SignalScanner()
  readonly #listeners = new Set<(text: string) => void>()
  #listenDecoder: StringDecoder | undefined
  #spool: Spool | undefined
  #saveError: string | undefined
  #newlines = 0
  #lastOutputAt = 0

  constructor(options: CaptureOptions) {
    this.#limits = options.limits
    this.#storeDir = options.storeDir
    this.#log = options.log ?? false
    this.#ring = new ByteRing(Math.max(2 * options.limits.maxBytes, 4 * PREVIEW_CHARS))
    if (this.#log) this.#openSpool()
  }

  /** Takes the next chunk of output. Returns false when the spool is behind: pause until `onDrain`. */
  push(chunk: Buffer): boolean {
    this.#lastOutputAt = Date.now()
    let ok = true
    if (!this.#spool && this.#saveError === undefined) {
      this.#newlines += countNewlineBytes(chunk)
      if (this.#ring.end + chunk.length > this.#limits.maxBytes || this.#newlines >= this.#limits.maxLines) {
        ok = this.#openSpool()
      }
    }
    if (this.#spool) ok = this.#spool.write(chunk) && ok
    this.#ring.write(chunk, this.#log ? undefined : (piece) => this.#scanner.push(this.#decoder.write(piece)))
    if (this.#listeners.size) {
      this.#listenDecoder ??= new StringDecoder("utf8")
      const text = this.#listenDecoder.write(chunk)
      if (text) for (const listener of this.#listeners) listener(text)
    }
    return ok
  }

  /** Calls `listener` with each piece of decoded output from now on; returns the unsubscribe. */
  listen(listener: (text: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  onDrain(listener: () => void): void {
    if (this.#spool) this.#spool.onDrain(listener)
    else queueMicrotask(listener)
  }

  /** Bytes received so far. */
  get bytes(): number {
    return this.#ring.end
  }

  /** When the last output arrived (ms since the epoch), or 0. */
  get lastOutputAt(): number {
    return this.#lastOutputAt
  }

  /** The spool file, once there is one (always, for a log). */
  get path(): string | undefined {
    return this.#spool?.path
  }

  /** Resolves when everything received so far is in the spool file. */
  flush(): Promise<void> {
    return this.#spool?.flush() ?? Promise.resolve()
  }

  /** The last `chars` characters of output (for live progress and prompt detection). */
  tail(chars: number = PREVIEW_CHARS): string {
    // A character is at most 4 bytes; start on a character boundary.
    const bytes = this.#ring.read(this.#ring.end - 4 * chars)
    const text = bytes.toString("utf8", bytes.length === this.#ring.end ? 0 : charStart(bytes))
    return text.length > chars ? text.slice(text.length - chars) : text
  }

  /**
   * Ends the capture and bounds the output.
   * 1. Decode the held tail (with the start of its first line, if that fell out of the ring) and cut it
   *    to the limits.
   * 2. Nothing cut: the text is the whole output; a spool started on the way is removed again.
   * 3. Cut: close the spool (or write the held bytes to one) and merge the signals of the part that
   *    left memory with those of the held part that was cut, numbering lines as in the full output.
   */
  async finish(): Promise<Captured> {
    const tail = this.tail()
    const offset = this.#scanner.newlines
    const bytes = this.#ring.read()
    // A log's evicted bytes were not decoded: start the held part on a character boundary instead.
    const from = this.#log && this.#ring.start > 0 ? charStart(bytes) : 0
    const held = this.#scanner.takePending() + this.#decoder.write(bytes.subarray(from)) + this.#decoder.end()
    const totalBytes = this.#ring.end
    const result = cut(held, { ...this.#limits, direction: "tail" })
    if (!result.truncated) {
      if (this.#spool && !this.#log) await this.#spool.discard()
      const outputPath = this.#log ? await this.#closeSpool() : undefined
      const trimmed = held.endsWith("\n") ? held.slice(0, -1) : held
      const totalLines = held === "" ? 0 : countNewlines(trimmed) + 1
      return {
        text: held,
        truncated: false,
        ...(outputPath ? { outputPath } : {}),
        totalBytes,
        totalLines,
        keptLines: totalLines,
        signals: [],
        tail,
      }
    }
    if (!this.#spool && this.#saveError === undefined) this.#openSpool()
    const outputPath = await this.#closeSpool()
    const later = result.signals.map((signal) => ({ line: signal.line + offset, text: signal.text }))
    return {
      text: result.preview,
      truncated: true,
      ...(outputPath ? { outputPath } : {}),
      ...(this.#saveError !== undefined ? { saveError: this.#saveError } : {}),
      totalBytes,
      totalLines: offset + result.totalLines,
      keptLines: result.keptLines,
      signals: mergeSignals(this.#scanner.signals(), later),
      tail,
    }
  }

  /** Opens the spool and writes everything so far to it (still all in the ring: see `push`). */
  #openSpool(): boolean {
    try {
      this.#spool = Spool.open(this.#storeDir, { inPlace: this.#log })
    } catch (error) {
      this.#saveError = message(error)
      return true
    }
    return this.#ring.length === 0 ? true : this.#spool.write(this.#ring.read())
  }

  async #closeSpool(): Promise<string | undefined> {
    if (!this.#spool) return undefined
    try {
      return await this.#spool.finish()
    } catch (error) {
      this.#saveError = message(error)
      return undefined
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
