// A loopback OpenAI-compatible chat-completions server that plays a script: each POST to
// /v1/chat/completions gets the next scripted reply, streamed as server-sent events.
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export type Reply =
  | {
      readonly toolCalls: readonly {
        readonly name: string
        readonly arguments: unknown
        /** Default `call_<request>_<index>`: give one when a session outlives the server (ids must differ). */
        readonly id?: string
      }[]
    }
  | { readonly text: string }
  | { readonly status: number; readonly body: string }

export interface FakeOpenAI {
  readonly baseURL: string
  /** The request bodies received, in order. */
  readonly requests: any[]
  close(): Promise<void>
}

export async function fakeOpenAI(script: readonly Reply[]): Promise<FakeOpenAI> {
  const requests: any[] = []
  let next = 0
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end()
      return
    }
    requests.push(JSON.parse(await body(req)))
    const reply = script[next++] ?? { text: "(script exhausted)" }
    if ("status" in reply) {
      res.writeHead(reply.status, { "content-type": "application/json" }).end(reply.body)
      return
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    const id = `chatcmpl-${next}`
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: "test-model",
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`
    const chunks: string[] = [chunk({ role: "assistant", content: "" })]
    if ("text" in reply) {
      for (const word of reply.text.split(/(?<= )/)) chunks.push(chunk({ content: word }))
      chunks.push(chunk({}, "stop"))
    } else {
      reply.toolCalls.forEach((call, index) => {
        const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)
        const half = Math.floor(args.length / 2)
        chunks.push(
          chunk({
            tool_calls: [
              {
                index,
                id: call.id ?? `call_${next}_${index}`,
                type: "function",
                function: { name: call.name, arguments: "" },
              },
            ],
          }),
          chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }),
          chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
        )
      })
      chunks.push(chunk({}, "tool_calls"))
    }
    chunks.push(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1_700_000_000, model: "test-model", choices: [], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } })}\n\n`,
      "data: [DONE]\n\n",
    )
    for (const piece of chunks) {
      res.write(piece)
      await new Promise((resolve) => setImmediate(resolve))
    }
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}
