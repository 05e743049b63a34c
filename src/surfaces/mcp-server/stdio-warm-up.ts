// The stdio server's call path, run on a throwaway toolbelt while the client has not called much yet, so
// that the calls a session makes are answered by code V8 has optimised.
//
// V8 runs new code unoptimised and optimises what runs often, on the other core: a server that takes
// its first calls cold answers its first thousand or so at two to three times its steady latency, in
// runs, while the optimiser competes with the client (bench/mcp.bench.ts: one call in flight, the
// first rounds after a 100-call warm-up; after 1,000 calls 1.29× the reference instead of 0.9×).
// Running the same code first, where nothing of the user's is touched, lets V8 do that work before.

import { PassThrough } from "node:stream"
import { type WarmUpReport, withWarmUpToolbelt } from "../../compose/warm-up-toolbelt.ts"
import { monotonicMs } from "../../platform/util/clock.ts"
import { serveMcpStdio } from "./stdio.ts"

/** Calls made at most, and the time they may take (on a slow or busy machine, fewer are made). */
export const WARM_UP_CALLS = 1000
export const WARM_UP_MS = 1500

/** The file read: 300 short lines. */
const FILE = {
  name: "warm-up.ts",
  text: `${Array.from({ length: 300 }, (_, index) => `  const line${index} = input.at(${index}) // ${index}`).join("\n")}\n`,
}

/**
 * The `n`th call's window of the file: never the previous call's, and 77 in all, so what the process
 * keeps of recent answers (pages, digests) holds few of the warm-up's.
 */
function windowOf(n: number): { offset: number; limit: number } {
  return { offset: 1 + (n % 7), limit: 100 + 10 * (n % 11) }
}

/**
 * On a throwaway toolbelt (`withWarmUpToolbelt`: a temp dir of its own, an in-memory store, nothing of
 * the user's), the stdio server (`serveMcpStdio`, the code the real one runs) over in-memory streams: an
 * `initialize`, then `read` calls one after another, each with another window of the file than the
 * call before (the loop guard sees no repeat, nor a cycle short enough to stop), until `calls` were
 * made, `budgetMs` passed or `signal` aborted. Between two calls the event loop turns: the real
 * connection's messages are never held back by more than one call.
 */
export function warmUpStdio(
  options: { readonly calls?: number; readonly budgetMs?: number; readonly signal?: AbortSignal } = {},
): Promise<WarmUpReport> {
  const deadline = monotonicMs() + (options.budgetMs ?? WARM_UP_MS)
  const limit = options.calls ?? WARM_UP_CALLS
  return withWarmUpToolbelt(FILE, async ({ toolbelt, answered }) => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const server = serveMcpStdio({ toolbelt, stdin, stdout })
    const client = new LineClient(stdin, stdout)
    try {
      await client.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "toolbelt-warm-up", version: "1" },
      })
      client.notify("notifications/initialized")
      for (let n = 0; n < limit && monotonicMs() < deadline && !options.signal?.aborted; n++) {
        const reply = await client.request("tools/call", {
          name: "read",
          arguments: { filePath: FILE.name, ...windowOf(n) },
        })
        if ((reply as { isError?: unknown }).isError === true)
          throw new Error(`A warm-up read failed: ${JSON.stringify(reply).slice(0, 200)}.`)
        answered()
        await new Promise((resolve) => setImmediate(resolve))
      }
    } finally {
      client.close()
      await server.close()
    }
  })
}

/** The client end of the in-memory wire: one JSON-RPC message a line, one request at a time. */
class LineClient {
  readonly #out: PassThrough
  readonly #in: PassThrough
  #id = 0
  #buffer = ""
  #waiting: { id: number; resolve: (result: unknown) => void; reject: (error: Error) => void } | undefined

  constructor(toServer: PassThrough, fromServer: PassThrough) {
    this.#out = toServer
    this.#in = fromServer
    fromServer.setEncoding("utf8")
    fromServer.on("data", this.#onData)
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = ++this.#id
    const { promise, resolve, reject } = Promise.withResolvers<unknown>()
    this.#waiting = { id, resolve, reject }
    this.#out.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`)
    return promise
  }

  notify(method: string): void {
    this.#out.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`)
  }

  close(): void {
    this.#in.off("data", this.#onData)
    this.#waiting?.reject(new Error("The warm-up ended."))
    this.#waiting = undefined
    this.#out.end()
  }

  #onData = (chunk: string): void => {
    this.#buffer += chunk
    for (let end = this.#buffer.indexOf("\n"); end !== -1; end = this.#buffer.indexOf("\n")) {
      const line = this.#buffer.slice(0, end)
      this.#buffer = this.#buffer.slice(end + 1)
      const message = JSON.parse(line) as { id?: unknown; result?: unknown; error?: { message?: string } }
      const waiting = this.#waiting
      if (!waiting || message.id !== waiting.id) continue
      this.#waiting = undefined
      if (message.error) waiting.reject(new Error(message.error.message ?? "an error answer"))
      else waiting.resolve(message.result)
    }
  }
}
