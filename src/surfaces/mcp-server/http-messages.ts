// What the MCP endpoint reads from the JSON-RPC messages of a request, beyond what the SDK does.
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
} from "@modelcontextprotocol/server"

/** The ids of the requests in a POST body (its stream carries their messages). */
export function requestIds(body: unknown): RequestId[] {
  if (body === undefined) return []
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[]
  return messages.filter((message) => isJSONRPCRequest(message)).map((message) => message.id)
}

/** The ids of the requests these messages cancel. */
export function cancelledRequests(messages: readonly JSONRPCMessage[]): (string | number)[] {
  const ids: (string | number)[] = []
  for (const message of messages) {
    if (!isJSONRPCNotification(message) || message.method !== "notifications/cancelled") continue
    const id = (message.params as { requestId?: unknown } | undefined)?.requestId
    if (typeof id === "string" || typeof id === "number") ids.push(id)
  }
  return ids
}

/** The protocol version a 2026-07-28 request claims in its `_meta` envelope. */
export function requestedVersion(body: unknown): string | undefined {
  const first = (Array.isArray(body) ? body[0] : body) as
    | { params?: { _meta?: Record<string, unknown> } }
    | undefined
  const version = first?.params?._meta?.[PROTOCOL_VERSION_META_KEY]
  return typeof version === "string" ? version : undefined
}
