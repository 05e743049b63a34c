// A loopback HTTP stand-in for a model provider: a real `node:http` server on 127.0.0.1 that records
// each request body and answers with what the provider's script says for it: server-sent events (as
// the providers stream) or an error status with a JSON body (as they refuse a request).
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

export type Answer =
  | { readonly events: readonly string[] }
  | { readonly status: number; readonly body: unknown }

export interface Received {
  readonly path: string
  readonly body: any
}

export interface StandIn {
  /** `http://127.0.0.1:<port>`: give the provider package this, with its path prefix. */
  readonly origin: string
  readonly requests: Received[]
  /** The answers with an error status, in order (what the stand-in refused and why). */
  readonly refused: unknown[]
  close(): Promise<void>
}

/** Starts a stand-in that answers each POST with `answer(request, index)`. */
export async function standIn(answer: (request: Received, index: number) => Answer): Promise<StandIn> {
  const requests: Received[] = []
  const refused: unknown[] = []
  const server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(404).end()
      return
    }
    const received = { path: req.url ?? "", body: JSON.parse(await text(req)) }
    requests.push(received)
    const reply = answer(received, requests.length - 1)
    if ("status" in reply) {
      refused.push(reply.body)
      res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body))
      return
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    for (const event of reply.events) {
      res.write(event)
      // One event per turn of the event loop, as a network would deliver them.
      await new Promise((resolve) => setImmediate(resolve))
    }
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** One server-sent event: `data:` with the JSON, and `event:` when the provider names its events. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`
}

function text(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => {
      body += chunk
    })
    req.on("end", () => resolve(body))
    req.on("error", reject)
  })
}
