// What a client sent, read as JSON-RPC before the SDK sees it: one message, a batch the negotiated
// revision allows, or the error to answer with. Pure: the transports (HTTP, stdio) share it.
import { type JSONRPCMessage, parseJSONRPCMessage, type RequestId } from "@modelcontextprotocol/server"
import { allowsBatches } from "./protocol-versions.ts"

export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600

export type ReadBody =
  | { readonly kind: "message"; readonly message: JSONRPCMessage }
  | { readonly kind: "batch"; readonly messages: readonly JSONRPCMessage[] }
  | {
      readonly kind: "refused"
      readonly code: number
      readonly message: string
      /** The request's id when it could be read, so the client can match the error to it. */
      readonly id: RequestId | null
    }

/** Parses JSON text, then reads it as `readBody` does; text that is not JSON is a parse error. */
export function readText(text: string, version: string | undefined): ReadBody {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return refused(
      PARSE_ERROR,
      `Parse error: the message is not JSON (${(error as Error).message}). Send one JSON-RPC 2.0 object.`,
    )
  }
  return readBody(value, version)
}

/**
 * Reads a parsed body.
 * 1. An array is a batch: refused unless the connection negotiated a revision that has batches
 *    (2025-03-26), and then only when it is not empty and every element is a JSON-RPC message.
 * 2. Anything else must be one JSON-RPC 2.0 message; JSON that is not one (`{"hello": 1}`) is an
 *    Invalid Request, answered with the request's id when it has a readable one.
 */
export function readBody(value: unknown, version: string | undefined): ReadBody {
  // 1. A batch.
  if (Array.isArray(value)) {
    if (!allowsBatches(version)) {
      const negotiated = version ? `this connection uses ${version}` : "no revision is negotiated yet"
      return refused(
        INVALID_REQUEST,
        `Invalid Request: JSON-RPC batches exist only in MCP revision 2025-03-26 and ${negotiated}. Send each message on its own.`,
      )
    }
    if (value.length === 0) return refused(INVALID_REQUEST, "Invalid Request: the batch is empty.")
    const messages: JSONRPCMessage[] = []
    for (const [index, element] of value.entries()) {
      const message = asMessage(element)
      if (!message) {
        return refused(
          INVALID_REQUEST,
          `Invalid Request: element ${index} of the batch is not a JSON-RPC 2.0 message.`,
        )
      }
      messages.push(message)
    }
    return { kind: "batch", messages }
  }
  // 2. One message.
  const message = asMessage(value)
  if (message) return { kind: "message", message }
  return refused(
    INVALID_REQUEST,
    'Invalid Request: not a JSON-RPC 2.0 message (it needs "jsonrpc": "2.0" and a "method", or a "result" or "error" with an "id").',
    readableId(value),
  )
}

/** The JSON-RPC error response for a refused body. */
export function errorResponse(refusal: Extract<ReadBody, { kind: "refused" }>): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id: refusal.id,
    error: { code: refusal.code, message: refusal.message },
  } as unknown as JSONRPCMessage
}

function asMessage(value: unknown): JSONRPCMessage | undefined {
  if (isPlainRequestOrNotification(value)) return value
  try {
    return parseJSONRPCMessage(value)
  } catch {
    return undefined
  }
}

/**
 * The common message, a request or notification with no `_meta`, told without the SDK's schema (whose
 * Zod parse cost each call as much as reading its JSON): only shapes that schema accepts as they are
 * pass here; anything else (a response, `_meta`, an unusual id, extra keys) is the schema's to judge.
 */
function isPlainRequestOrNotification(value: unknown): value is JSONRPCMessage {
  if (!isPlainObject(value) || value.jsonrpc !== "2.0" || typeof value.method !== "string") return false
  for (const key in value) {
    if (key !== "jsonrpc" && key !== "method" && key !== "id" && key !== "params") return false
  }
  if ("id" in value && typeof value.id !== "string" && !Number.isSafeInteger(value.id)) return false
  const { params } = value
  return params === undefined || (isPlainObject(params) && !("_meta" in params))
}

/** An object as JSON.parse makes them: not an array, not an instance of a class. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function readableId(value: unknown): RequestId | null {
  if (typeof value !== "object" || value === null) return null
  const { id } = value as { id?: unknown }
  return typeof id === "string" || typeof id === "number" ? id : null
}

function refused(code: number, message: string, id: RequestId | null = null): ReadBody {
  return { kind: "refused", code, message, id }
}
