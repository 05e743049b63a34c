// The load benches' minimal HTTP/1.1 client (bench/lib/http-lite.ts), against a real node:http server.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { LiteConnection } from "../bench/lib/http-lite.ts"

let server: Server | undefined
let connection: LiteConnection | undefined

afterEach(async () => {
  connection?.close()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler)
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe("LiteConnection", () => {
  it("sends the body and headers, and reads answers framed by length or in chunks, over one connection", async () => {
    const sockets = new Set<unknown>()
    const url = await serve((request, response) => {
      sockets.add(request.socket)
      let body = ""
      request.on("data", (chunk) => (body += chunk))
      request.on("end", () => {
        const answer = JSON.stringify({ body: JSON.parse(body), auth: request.headers.authorization, é: "ü" })
        if (request.url === "/chunked") {
          // No length: node:http sends it chunked, here in pieces that arrive apart.
          response.write(answer.slice(0, 5))
          setTimeout(() => response.end(answer.slice(5)), 20)
        } else {
          response.setHeader("content-length", Buffer.byteLength(answer))
          response.end(answer)
        }
      })
    })
    connection = new LiteConnection(url, { authorization: "Bearer t" })
    for (const path of ["/length", "/chunked", "/length", "/chunked"]) {
      expect(await connection.post(path, { path, n: [1, 2] })).toEqual({
        body: { path, n: [1, 2] },
        auth: "Bearer t",
        é: "ü",
      })
    }
    expect(sockets.size).toBe(1)
  })

  it("rejects a request when the connection is gone, and one sent while another waits", async () => {
    const url = await serve((request) => request.socket.destroy())
    connection = new LiteConnection(url)
    const first = connection.request("GET", "/")
    await expect(connection.request("GET", "/")).rejects.toThrow(/One request at a time/)
    await expect(first).rejects.toThrow(/closed/)
    await expect(connection.request("GET", "/")).rejects.toThrow(/closed/)
  })
})
