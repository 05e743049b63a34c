// Routes' answers through Node's HTTP server, where a JSON value is written to Node's response
// directly, against the same routes answered by Hono alone (`app.request`, `context.json`): the same
// status, headers and body; a context's headers still go with a 204; errors are still the app's.
import type { AddressInfo } from "node:net"
import { createAdaptorServer } from "@hono/node-server"
import { Hono } from "hono"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { ApiError, errorResponse } from "./api-error.ts"
import { mount, route } from "./route.ts"

const routes = [
  route({
    id: "getThing",
    method: "get",
    path: "/things/:id",
    tag: "things",
    summary: "One",
    params: z.object({ id: z.string() }),
    responses: { 200: { description: "It." } },
    handler: ({ params }) => {
      if (params.id === "missing") throw new ApiError(404, "No such thing.")
      return { id: params.id, name: "ünïcödé 😀", list: [1, 2, 3], none: null }
    },
  }),
  route({
    id: "addThing",
    method: "post",
    path: "/things",
    tag: "things",
    summary: "Adds",
    body: z.object({ name: z.string() }),
    responses: { 201: { description: "Added." } },
    handler: ({ body }) => body,
  }),
  route({
    id: "login",
    method: "post",
    path: "/login",
    tag: "things",
    summary: "Sets a cookie",
    responses: { 204: { description: "Done." } },
    handler: ({ context }) => {
      context.header("set-cookie", "a=b")
      return undefined
    },
  }),
]

function app(): Hono {
  const hono = new Hono()
  mount(hono, routes, { maxBodyBytes: 1000 })
  hono.onError((error) =>
    error instanceof ApiError ? errorResponse(error.status, error.message) : errorResponse(500, "no"),
  )
  return hono
}

const servers: Array<{ close(): void }> = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

/** The app behind a real Node server on a free port; its base URL. */
async function served(): Promise<string> {
  const server = createAdaptorServer({ fetch: app().fetch, overrideGlobalObjects: false })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** What a client sees of a response: status, the headers that say what the body is, the body's bytes. */
async function seen(response: Response) {
  const body = Buffer.from(await response.arrayBuffer())
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    length: response.headers.get("content-length"),
    cookie: response.headers.get("set-cookie"),
    body: body.toString("utf8"),
  }
}

describe("route answers through Node's server", () => {
  const requests: Array<[string, RequestInit]> = [
    ["/things/a1", {}],
    ["/things/missing", {}],
    [
      "/things",
      {
        method: "POST",
        body: JSON.stringify({ name: "é" }),
        headers: { "content-type": "application/json" },
      },
    ],
    ["/things", { method: "POST", body: "{", headers: { "content-type": "application/json" } }],
    ["/login", { method: "POST" }],
  ]

  it.each(requests)("%s answers as Hono's own context.json does", async (path, init) => {
    const url = await served()
    const direct = await seen(await fetch(`${url}${path}`, init))
    const hono = await seen(await app().request(path, init))
    expect(direct).toEqual({ ...hono, length: direct.length })
    // Node's server says the length Hono leaves to it.
    if (direct.status !== 204) expect(Number(direct.length)).toBe(Buffer.byteLength(direct.body))
  })

  it("writes the value's JSON with its status and type", async () => {
    const url = await served()
    const reply = await fetch(`${url}/things/b2`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("application/json")
    expect(await reply.json()).toEqual({ id: "b2", name: "ünïcödé 😀", list: [1, 2, 3], none: null })
    const created = await fetch(`${url}/things`, {
      method: "POST",
      body: JSON.stringify({ name: "x" }),
      headers: { "content-type": "application/json" },
    })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ name: "x" })
  })

  it("a context's headers go with a 204", async () => {
    const url = await served()
    const reply = await fetch(`${url}/login`, { method: "POST" })
    expect(reply.status).toBe(204)
    expect(reply.headers.get("set-cookie")).toBe("a=b")
  })
})
