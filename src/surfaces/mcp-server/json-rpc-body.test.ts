import { parseJSONRPCMessage } from "@modelcontextprotocol/server"
import { describe, expect, it } from "vitest"
import { INVALID_REQUEST, PARSE_ERROR, readText } from "./json-rpc-body.ts"

const ping = { jsonrpc: "2.0", id: 1, method: "ping" }
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }

describe("readText", () => {
  // The common shapes are told without the SDK's schema: what comes out must be what it would give.
  it.each([
    ping,
    initialized,
    { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "read", arguments: { filePath: "x" } } },
    { method: "tools/list", id: 0, jsonrpc: "2.0", params: {} },
    { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: 3 } } },
    { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: { no: 1 } } } },
    { jsonrpc: "2.0", id: 1.5, method: "x" },
    { jsonrpc: "2.0", id: 2 ** 60, method: "x" },
    { jsonrpc: "2.0", id: null, method: "x" },
    { jsonrpc: "2.0", id: 1, method: "x", extra: true },
    { jsonrpc: "2.0", method: "x", params: [1, 2] },
    { jsonrpc: "2.0", method: "x", params: null },
    { jsonrpc: "1.0", id: 1, method: "x" },
    { jsonrpc: "2.0", id: 1, method: 5 },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "r" } },
  ])("reads %j as the SDK's schema does", (value) => {
    const read = readText(JSON.stringify(value), "2025-06-18")
    let expected: unknown
    try {
      expected = parseJSONRPCMessage(value)
    } catch {
      expected = undefined
    }
    if (expected === undefined) expect(read.kind).toBe("refused")
    else expect(read).toEqual({ kind: "message", message: expected })
  })

  it.each([
    ["a request", ping],
    ["a notification", initialized],
    ["a response", { jsonrpc: "2.0", id: 7, result: {} }],
  ])("passes %s on", (_name, message) => {
    expect(readText(JSON.stringify(message), "2025-06-18")).toEqual({ kind: "message", message })
  })

  it("answers text that is not JSON with -32700 Parse error", () => {
    const read = readText("{not json", "2025-06-18")
    expect(read).toMatchObject({ kind: "refused", code: PARSE_ERROR, id: null })
    expect(read).toHaveProperty("message", expect.stringMatching(/^Parse error: the message is not JSON/))
  })

  it.each([
    ["an object that is not JSON-RPC", { hello: 1 }, null],
    ["a request without jsonrpc", { id: 4, method: "ping" }, 4],
    ["a number", 42, null],
    ["a string", "ping", null],
  ])("answers %s with -32600 Invalid Request, with its id when it has one", (_name, value, id) => {
    expect(readText(JSON.stringify(value), "2025-06-18")).toMatchObject({
      kind: "refused",
      code: INVALID_REQUEST,
      id,
    })
  })

  it("reads a batch under 2025-03-26, the one revision that has batches", () => {
    expect(readText(JSON.stringify([ping, initialized]), "2025-03-26")).toEqual({
      kind: "batch",
      messages: [ping, initialized],
    })
  })

  it.each([
    ["2025-06-18", "this connection uses 2025-06-18"],
    ["2025-11-25", "this connection uses 2025-11-25"],
    [undefined, "no revision is negotiated yet"],
  ])("refuses a batch under %s, saying why", (version, why) => {
    const read = readText(JSON.stringify([ping]), version)
    expect(read).toMatchObject({ kind: "refused", code: INVALID_REQUEST })
    expect(read).toHaveProperty("message", expect.stringContaining(why))
    expect(read).toHaveProperty("message", expect.stringContaining("only in MCP revision 2025-03-26"))
  })

  it("refuses an empty batch and a batch with an element that is not JSON-RPC", () => {
    expect(readText("[]", "2025-03-26")).toMatchObject({
      code: INVALID_REQUEST,
      message: "Invalid Request: the batch is empty.",
    })
    expect(readText(JSON.stringify([ping, { hello: 1 }]), "2025-03-26")).toMatchObject({
      code: INVALID_REQUEST,
      message: "Invalid Request: element 1 of the batch is not a JSON-RPC 2.0 message.",
    })
  })
})
