// Tool search over `toolbelt serve`'s API on loopback: GET /api/tools gives each tool's size in tokens
// and whether it is deferred; GET /api/tools/deferral the deferral in effect and why; both documented.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import * as Tool from "../../src/runtime/tool/index.ts"
import { api, type Running, startServer } from "./helpers.ts"

let running: Running

beforeAll(async () => {
  running = await startServer({ config: { tool_search: "on" } as never })
  const tool = (what: string) =>
    Tool.make({ description: `${what}.`, input: z.object({ id: z.string() }), execute: ({ id }) => id })
  running.toolbelt.register(
    { demo_create_issue: tool("Create an issue"), demo_send_message: tool("Send a message") },
    { source: "mcp:demo" },
  )
})
afterAll(() => running.close())

interface Listed {
  name: string
  source: string
  tokens: number
  deferred: boolean
}

describe("tool search over the API", () => {
  it("GET /api/tools: every tool with its tokens and whether it is deferred, deferred ones included", async () => {
    const { status, body } = await api<Listed[]>(running.url, "GET", "/api/tools")
    expect(status).toBe(200)
    const byName = new Map(body.map((tool) => [tool.name, tool]))
    expect(byName.get("demo_create_issue")).toMatchObject({ source: "mcp:demo", deferred: true })
    expect(byName.get("read")).toMatchObject({ source: "builtin", deferred: false })
    expect(byName.get("tool_search")).toMatchObject({ deferred: false })
    for (const tool of body) {
      expect(Number.isInteger(tool.tokens)).toBe(true)
      expect(tool.tokens).toBeGreaterThan(10)
    }
  })

  it("GET /api/tools/deferral: the mode, the budget, the total and why; the tokens add up", async () => {
    const [{ body: tools }, deferral] = await Promise.all([
      api<Listed[]>(running.url, "GET", "/api/tools"),
      api(running.url, "GET", "/api/tools/deferral"),
    ])
    expect(deferral.status).toBe(200)
    const others = tools.filter((tool) => tool.name !== "tool_search")
    expect(deferral.body).toEqual({
      mode: "on",
      budget: 20_000,
      totalTokens: others.reduce((sum, tool) => sum + tool.tokens, 0),
      offered: others.length,
      deferred: 2,
      reason: expect.stringContaining('"on"'),
      tokenizer: "o200k_base",
    })
    const unknown = await api(running.url, "GET", "/api/tools/deferral?agent=nobody")
    expect(unknown.status).toBe(400)
  })

  it("the OpenAPI document describes both", async () => {
    const { body } = await api(running.url, "GET", "/openapi.json")
    const listed = body.paths["/api/tools"].get.responses["200"].content["application/json"].schema
    expect(listed.items.properties.tokens.type).toBe("integer")
    expect(listed.items.properties.deferred.type).toBe("boolean")
    const state = body.paths["/api/tools/deferral"].get.responses["200"].content["application/json"].schema
    expect(Object.keys(state.properties).sort()).toEqual(
      ["budget", "deferred", "mode", "offered", "reason", "tokenizer", "totalTokens"].sort(),
    )
  })
})
