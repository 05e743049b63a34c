import { Hono } from "hono"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { ApiError } from "./api-error.ts"
import { openApiDocument } from "./openapi.ts"
import { errorSpec, mount, route } from "./route.ts"

const routes = [
  route({
    id: "listThings",
    method: "get",
    path: "/things",
    tag: "things",
    summary: "Lists",
    query: z.object({ limit: z.coerce.number().int().optional() }),
    responses: { 200: { description: "The things." } },
    handler: () => [],
  }),
  route({
    id: "addThing",
    method: "post",
    path: "/things",
    tag: "things",
    summary: "Adds",
    body: z.object({ name: z.string() }),
    responses: { 201: { description: "Added." }, 400: errorSpec("A name taken already.") },
    handler: ({ body }) => {
      if (body.name === "taken") throw new ApiError(400, "taken")
      return body
    },
  }),
  route({
    id: "ping",
    method: "get",
    path: "/ping",
    tag: "things",
    summary: "Pings",
    responses: { 200: { description: "Pong." } },
    handler: () => ({ pong: true }),
  }),
]

const document = openApiDocument(routes, { title: "t", version: "1", description: "d" }) as {
  paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>
}
const statuses = (path: string, method: string) => Object.keys(document.paths[path]![method]!.responses)

function app(): Hono {
  const hono = new Hono()
  mount(hono, routes, { maxBodyBytes: 100 })
  hono.onError((error) =>
    Response.json({ error: error.message }, { status: error instanceof ApiError ? error.status : 500 }),
  )
  return hono
}

describe("the document's responses", () => {
  it("list the errors mount gives before a handler runs, which it really gives", async () => {
    expect(statuses("/things", "get")).toEqual(["200", "400"])
    expect(statuses("/things", "post")).toEqual(["201", "400", "413", "415"])
    expect(statuses("/ping", "get")).toEqual(["200"])
    const hono = app()
    expect((await hono.request("/things?limit=x")).status).toBe(400)
    const post = (body: string, type = "application/json") =>
      hono.request("/things", { method: "POST", body, headers: { "content-type": type } })
    expect((await post("name=a", "application/x-www-form-urlencoded")).status).toBe(415)
    expect((await post(JSON.stringify({ name: "x".repeat(200) }))).status).toBe(413)
    expect((await post("{}")).status).toBe(400)
  })

  it("keep a route's own description of a status mount also gives", () => {
    expect(document.paths["/things"]!.post!.responses["400"]!.description).toBe("A name taken already.")
    expect(document.paths["/things"]!.get!.responses["400"]!.description).toContain("Invalid request")
  })
})
