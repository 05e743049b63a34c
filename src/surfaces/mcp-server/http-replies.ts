// The MCP endpoint's answers that are not the SDK's: refusals that say why and what to do, and a
// response that tells when it has been sent.

import type { Resumption } from "./event-store.ts"
import { jsonRpcRefusal } from "./guard.ts"
import { errorResponse, type ReadBody } from "./json-rpc-body.ts"
import type { EndReason } from "./session-table.ts"

/**
 * The response, whose `release` runs once it has been sent in full or the client went away (the
 * session is in use meanwhile: an open stream is a client waiting).
 */
export function whileSent(response: Response, release: () => void): Response {
  if (!response.body) {
    release()
    return response
  }
  const reader = response.body.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (!done) return controller.enqueue(value)
        release()
        controller.close()
      } catch (error) {
        release()
        controller.error(error)
      }
    },
    cancel(reason) {
      release()
      return reader.cancel(reason)
    },
  })
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}

const ENDINGS: Record<EndReason, string> = {
  deleted: "it was ended by the client (DELETE)",
  expired: "it was not used for longer than the idle limit (mcp.session_idle_ms)",
  evicted: "the server reached its limit of live sessions (mcp.max_sessions) and it was the longest idle",
  closed: "its connection closed",
}

/** 404 for a session id that is not live, saying why when it is known: the client initializes again. */
export function sessionNotFound(reason: EndReason | undefined): Response {
  const why = reason ? ENDINGS[reason] : "it ended, or the server restarted"
  return jsonRpcRefusal(404, `Session not found: ${why}. Initialize a new session.`, {}, -32001)
}

/**
 * A `Last-Event-ID` with nothing to resume. An id this session does not keep (another session's, one
 * dropped to stay within the limits, one never sent) is 400. A stream whose requests were all
 * cancelled is 405, the answer the spec gives a GET that gets no stream: clients built on the MCP SDK
 * reconnect to a stream that ended without a response, and stop for good on 405 only.
 */
export function notResumable(eventId: string, why: Exclude<Resumption, "replay">): Response {
  const named = JSON.stringify(eventId.slice(0, 100))
  if (why === "cancelled") {
    return jsonRpcRefusal(
      405,
      `Method Not Allowed: the stream of Last-Event-ID ${named} ended when its request was cancelled (notifications/cancelled); nothing more will be sent on it.`,
      { allow: "GET, POST, DELETE" },
    )
  }
  return jsonRpcRefusal(
    400,
    `Bad Request: Last-Event-ID ${named} is not an event this session still keeps (a session keeps its most recent events while it lives, and only its own), so nothing can be replayed. Send the request again.`,
  )
}

export function tooLarge(limit: number): Response {
  return jsonRpcRefusal(
    413,
    `Payload Too Large: the request body is over the limit of ${limit} bytes (${mebibytes(limit)}). Raise it with {"mcp": {"max_request_bytes": N}} in toolbelt.json or --max-request-bytes N.`,
  )
}

function mebibytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`
}

export function jsonRpcError(status: number, refusal: Extract<ReadBody, { kind: "refused" }>): Response {
  return new Response(JSON.stringify(errorResponse(refusal)), {
    status,
    headers: { "content-type": "application/json" },
  })
}
