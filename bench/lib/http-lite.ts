// A minimal HTTP/1.1 client for load benches: one keep-alive connection per caller, one request at a
// time on it, written as one string; the response framed by Content-Length or chunked encoding.
// node:http's client (ClientRequest, its agent and parser) cost serve-load.bench.ts 0.3 ms of CPU a
// call, on the same two cores as the server under test: the bench measured its own load as the
// server's latency. The server still parses real HTTP from real sockets.
import { connect, type Socket } from "node:net"

export interface LiteResponse {
  readonly status: number
  readonly body: string
}

const HEADERS_END = Buffer.from("\r\n\r\n")

/** One connection to `http://host:port`; requests on it go one after another. */
export class LiteConnection {
  readonly #socket: Socket
  readonly #host: string
  readonly #headers: string
  #buffered: Buffer = Buffer.alloc(0)
  #waiting: { resolve: (response: LiteResponse) => void; reject: (error: Error) => void } | undefined
  #failed: Error | undefined

  /** `headers`: sent with every request (an authorization, say). */
  constructor(url: string, headers: Record<string, string> = {}) {
    const { hostname, port } = new URL(url)
    this.#host = `${hostname}:${port}`
    this.#headers = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")
    this.#socket = connect({ host: hostname, port: Number(port), noDelay: true })
    this.#socket.on("data", (chunk: Buffer) => {
      this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk])
      this.#answer()
    })
    const fail = (error: Error) => {
      this.#failed = error
      this.#waiting?.reject(error)
      this.#waiting = undefined
    }
    this.#socket.on("error", fail)
    this.#socket.on("close", () => fail(new Error("The connection closed.")))
  }

  /** Sends a request with a JSON body (or none) and resolves with the whole response. */
  request(method: string, path: string, body?: unknown): Promise<LiteResponse> {
    if (this.#failed) return Promise.reject(this.#failed)
    if (this.#waiting) return Promise.reject(new Error("One request at a time on a LiteConnection."))
    const text = body === undefined ? "" : JSON.stringify(body)
    const head =
      `${method} ${path} HTTP/1.1\r\nhost: ${this.#host}\r\n${this.#headers}` +
      (body === undefined ? "" : "content-type: application/json\r\n") +
      `content-length: ${Buffer.byteLength(text)}\r\n\r\n`
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject }
      this.#socket.write(head + text)
    })
  }

  /** POSTs `body` and resolves with the parsed JSON answer (any status). */
  async post(path: string, body: unknown): Promise<any> {
    return JSON.parse((await this.request("POST", path, body)).body)
  }

  close(): void {
    this.#socket.destroy()
  }

  /** Hands over the response once all of it has arrived. */
  #answer(): void {
    const waiting = this.#waiting
    if (!waiting) return
    const buffered = this.#buffered
    const end = buffered.indexOf(HEADERS_END)
    if (end < 0) return
    const head = buffered.toString("latin1", 0, end)
    const status = Number(head.slice(9, 12))
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    const start = end + HEADERS_END.length
    let body: Buffer
    let rest: Buffer
    if (length) {
      const stop = start + Number(length[1])
      if (buffered.length < stop) return
      body = buffered.subarray(start, stop)
      rest = buffered.subarray(stop)
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const chunks = dechunk(buffered, start)
      if (!chunks) return
      body = chunks.body
      rest = buffered.subarray(chunks.end)
    } else {
      waiting.reject(new Error(`A response without a length: ${head}`))
      this.#waiting = undefined
      return
    }
    this.#buffered = rest.length === 0 ? Buffer.alloc(0) : Buffer.from(rest)
    this.#waiting = undefined
    waiting.resolve({ status, body: body.toString("utf8") })
  }
}

/** The body of a chunked response starting at `from`, and where it ends; undefined until all arrived. */
function dechunk(buffered: Buffer, from: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = []
  let at = from
  for (;;) {
    const line = buffered.indexOf("\r\n", at)
    if (line < 0) return undefined
    const size = Number.parseInt(buffered.toString("latin1", at, line), 16)
    const start = line + 2
    if (size === 0) {
      // The last chunk, then (no trailers here) the closing empty line.
      if (buffered.length < start + 2) return undefined
      return { body: Buffer.concat(parts), end: start + 2 }
    }
    if (buffered.length < start + size + 2) return undefined
    parts.push(buffered.subarray(start, start + size))
    at = start + size + 2
  }
}
