// The stdio wire: one JSON-RPC message per line, every line answered. The SDK's own stdio transport
// skips a line that is not JSON without a word to the client and drops batches; this one answers.
import type { Readable, Writable } from "node:stream"
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from "@modelcontextprotocol/server"
import { DirectOutput } from "./direct-output.ts"
import { JsonLines } from "./json-lines.ts"
import { errorResponse, INVALID_REQUEST, readText } from "./json-rpc-body.ts"

/**
 * Bytes written to stdout and not yet taken by the client, past which stdin is not read: a client
 * that stops reading stops the server from taking more work, instead of growing its memory.
 */
export const DEFAULT_OUTPUT_HIGH_WATER = 1024 * 1024

/** A batch in flight: the responses it still waits for, and those it has. */
interface PendingBatch {
  readonly waiting: Set<RequestId>
  readonly responses: JSONRPCMessage[]
}

/**
 * A `Transport` over a readable and a writable stream (stdin and stdout).
 * 1. Input is split into lines (a trailing `\r` dropped, blank lines skipped); a line longer than
 *    `maxLineBytes` is answered with an error and skipped, never buffered whole.
 * 2. Each line is read by `readText` with the negotiated revision: not JSON → -32700 Parse error;
 *    JSON that is not JSON-RPC, or a batch the revision does not have → -32600 Invalid Request.
 * 3. A batch (2025-03-26) delivers its messages one by one and is answered with one array, once
 *    every request in it has its response (a cancelled request is not waited for).
 * 4. Everything else goes to `take`, then, unless it took it, to the SDK as it came; what is sent is
 *    written one message a line, resolved once the descriptor took it. stdout given by a client (a
 *    pipe or socket) is written directly (`DirectOutput`), at each line sent and each line read, so
 *    the client is not kept waiting for bytes while the server works.
 * 5. Back-pressure: while more than `outputHighWater` bytes wait for the client to read them, no
 *    line is read (the rest of a chunk waits, stdin is paused); reading resumes once they are written.
 *    `onBehind` hears both, so the server starts no more of the calls already read meanwhile.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: Transport["onmessage"]
  /** The client fell behind reading stdout (true), or caught up (false). */
  onBehind?: (behind: boolean) => void
  /** Offered each message that is not part of a batch first: true when it took it (`DirectCalls`). */
  take?: (message: JSONRPCMessage) => boolean
  sessionId?: string
  #version: string | undefined
  readonly #stdin: Readable
  readonly #stdout: Writable
  readonly #maxLineBytes: number
  readonly #outputHighWater: number
  /** Waiting for stdout to drain: the input after the last line read, if any. */
  #paused: { rest: Buffer | undefined } | undefined
  #chunks: Buffer[] = []
  #buffered = 0
  /** Skipping the rest of a line that was too long. */
  #skipping = false
  #batches = new Set<PendingBatch>()
  #started = false
  #closed = false
  readonly #json = new JsonLines()
  readonly #direct: DirectOutput | undefined

  constructor(
    stdin: Readable,
    stdout: Writable,
    options: { maxLineBytes?: number; outputHighWater?: number } = {},
  ) {
    this.#stdin = stdin
    this.#stdout = stdout
    this.#direct = DirectOutput.for(stdout)
    this.#maxLineBytes = options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE
    this.#outputHighWater = options.outputHighWater ?? DEFAULT_OUTPUT_HIGH_WATER
  }

  setProtocolVersion = (version: string): void => {
    this.#version = version
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("StdioLineTransport already started.")
    this.#started = true
    this.#listen("on")
    if (this.#stdin.readableEnded || this.#stdin.destroyed) setImmediate(this.#onEnd)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("The stdio connection is closed.")
    // 3. A response that belongs to a batch waits for the rest of it. (Only looked for while a batch
    // waits: telling a result from other messages validates it whole, a read's page included.)
    if (this.#batches.size > 0 && (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message))) {
      for (const batch of this.#batches) {
        if (!batch.waiting.delete(message.id as RequestId)) continue
        batch.responses.push(message)
        return this.#flush(batch)
      }
    }
    return this.#write(message)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#listen("off")
    this.#stdout.off("drain", this.#onDrain)
    this.#direct?.close()
    this.#paused = undefined
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause()
    this.#chunks = []
    this.#batches.clear()
    this.onclose?.()
  }

  #listen(method: "on" | "off"): void {
    this.#stdin[method]("data", this.#onData)
    this.#stdin[method]("error", this.#onError)
    this.#stdin[method]("end", this.#onEnd)
    this.#stdin[method]("close", this.#onEnd)
    this.#stdout[method]("error", this.#onError)
  }

  // 1. Lines.
  #onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk
    // 5. Paused while a line was being read: the chunk waits with the rest.
    if (this.#paused) {
      this.#paused.rest = this.#paused.rest ? Buffer.concat([this.#paused.rest, data]) : data
      return
    }
    for (;;) {
      // A line just read filled stdout: the rest waits for its drain.
      const paused = this.#paused as { rest: Buffer | undefined } | undefined
      if (paused) {
        if (data.length > 0) paused.rest = data
        return
      }
      const newline = data.indexOf(10)
      if (newline === -1) {
        this.#hold(data)
        return
      }
      const rest = data.subarray(newline + 1)
      this.#hold(data.subarray(0, newline))
      // A moment to pass on answers the client's end had no room for.
      this.#direct?.flush()
      const skipped = this.#skipping
      const line = Buffer.concat(this.#chunks).toString("utf8").replace(/\r$/, "")
      this.#chunks = []
      this.#buffered = 0
      this.#skipping = false
      if (!skipped && line.trim() !== "") this.#receive(line)
      data = rest
    }
  }

  #hold(part: Buffer): void {
    if (this.#skipping || part.length === 0) return
    this.#buffered += part.length
    if (this.#buffered <= this.#maxLineBytes) {
      this.#chunks.push(part)
      return
    }
    this.#chunks = []
    this.#buffered = 0
    this.#skipping = true
    void this.#write(
      errorResponse({
        kind: "refused",
        code: INVALID_REQUEST,
        message: `Invalid Request: a message over ${this.#maxLineBytes} bytes was skipped.`,
        id: null,
      }),
    ).catch((error: Error) => this.onerror?.(error))
  }

  // 2. Messages.
  #receive(line: string): void {
    const read = readText(line, this.#version)
    if (read.kind === "refused") {
      void this.#write(errorResponse(read)).catch((error: Error) => this.onerror?.(error))
      return
    }
    if (read.kind === "message") {
      this.#cancelled(read.message)
      if (this.take?.(read.message)) return
      this.onmessage?.(read.message)
      return
    }
    // 3. A batch.
    const waiting = new Set(read.messages.filter(isJSONRPCRequest).map((message) => message.id))
    const batch: PendingBatch = { waiting, responses: [] }
    if (waiting.size > 0) this.#batches.add(batch)
    for (const message of read.messages) {
      this.#cancelled(message)
      this.onmessage?.(message)
    }
  }

  /** A cancelled request gets no response (the spec says so): its batch stops waiting for it. */
  #cancelled(message: JSONRPCMessage): void {
    // Read already checked it is JSON-RPC: a notification is what has a method and no id. (Validating
    // every message again with the SDK's schema cost each call as much as reading it.)
    if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return
    const id = (message.params as { requestId?: RequestId } | undefined)?.requestId
    if (id === undefined) return
    for (const batch of this.#batches) {
      if (batch.waiting.delete(id)) void this.#flush(batch).catch((error: Error) => this.onerror?.(error))
    }
  }

  async #flush(batch: PendingBatch): Promise<void> {
    if (batch.waiting.size > 0) return
    this.#batches.delete(batch)
    if (batch.responses.length > 0) await this.#write(batch.responses)
  }

  // 4. Output.
  #write(message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    if (this.#closed) return Promise.resolve()
    const { promise, resolve, reject } = Promise.withResolvers<void>()
    // The callback runs once the line is handed on (after a drain when the stream was full), or fails.
    const done = (error?: Error | null) => (error ? reject(error) : resolve())
    const chunks = this.#json.line(message)
    const out = this.#stdout
    if (this.#direct) this.#direct.write(chunks, done)
    else if (chunks.length === 1) out.write(chunks[0]!, done)
    else {
      // Corked, the chunks go out in one write (writev) and no other line comes between them.
      out.cork()
      const last = chunks.length - 1
      for (let index = 0; index < last; index++) out.write(chunks[index]!)
      out.write(chunks[last]!, done)
      out.uncork()
    }
    this.#pauseIfBehind()
    return promise
  }

  // 5. Back-pressure.
  #pauseIfBehind(): void {
    const out = this.#stdout
    if (this.#paused) return
    const direct = this.#direct
    if (
      direct
        ? direct.pending < this.#outputHighWater
        : !out.writableNeedDrain || out.writableLength < this.#outputHighWater
    )
      return
    this.#paused = { rest: undefined }
    this.#stdin.pause()
    if (direct) direct.whenDrained(this.#onDrain)
    else out.once("drain", this.#onDrain)
    this.onBehind?.(true)
  }

  #onDrain = (): void => {
    const paused = this.#paused
    if (!paused || this.#closed) return
    this.#paused = undefined
    this.onBehind?.(false)
    if (paused.rest) this.#onData(paused.rest)
    if (!this.#paused) this.#stdin.resume()
  }

  #onError = (error: Error): void => {
    this.onerror?.(error)
  }

  #onEnd = (): void => {
    void this.close()
  }
}
