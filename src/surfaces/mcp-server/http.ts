// `toolbelt mcp --http PORT`: streamable HTTP, one toolbelt session per MCP session.
import { randomUUID } from "node:crypto"
import { createAdaptorServer } from "@hono/node-server"
import {
  isInitializeRequest,
  isLegacyRequest,
  readRequestBody,
  UnsupportedProtocolVersionError,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import { ascending } from "../../platform/util/id.ts"
import { logger } from "../../platform/util/log.ts"
import { type AskFallback, mcpSettings } from "../../runtime/config/mcp-settings.ts"
import { CallGate, callLimitsOf } from "./call-gate.ts"
import { type ReplayLimits, ReplayStore, relateSends, relating, type SessionEvents } from "./event-store.ts"
import { jsonRpcRefusal, refuse } from "./guard.ts"
import { ListenError, type Listening, listenOn, planListen } from "./http-listen.ts"
import { cancelledRequests, requestedVersion, requestIds } from "./http-messages.ts"
import { jsonRpcError, notResumable, sessionNotFound, tooLarge, whileSent } from "./http-replies.ts"
import { type ReadBody, readText } from "./json-rpc-body.ts"
import { PROTOCOL_VERSIONS, trackProtocolVersion } from "./protocol-versions.ts"
import { createMcpServer, type ToolbeltMcpServer } from "./server.ts"
import { SessionTable } from "./session-table.ts"

const log = logger("mcp")

/** Where clients send their requests. */
export const MCP_PATH = "/mcp"

export interface McpHandlerOptions {
  readonly toolbelt: Toolbelt
  readonly agent?: string
  readonly ask?: AskFallback
  readonly answerTimeoutMs?: number
  /** A session unused for this long ends (default: `mcp.session_idle_ms` of the config, else 30 min). */
  readonly sessionIdleMs?: number
  /** Live sessions at most (default: `mcp.max_sessions`, else 100). */
  readonly maxSessions?: number
  /** The largest request body (default: `mcp.max_request_bytes`, else 16 MiB). */
  readonly maxRequestBytes?: number
  /** How many sent messages are kept for clients that reconnect (default: `DEFAULT_REPLAY_LIMITS`). */
  readonly replayLimits?: ReplayLimits
  /** Told when a client's session opened: its toolbelt session and the name the client gave. */
  readonly onSessionOpened?: (opened: { readonly sessionID: string; readonly client?: string }) => void
}

export interface ServeHttpOptions extends McpHandlerOptions {
  /** The TCP port (0 picks a free one); give this or `socket`. */
  readonly port?: number
  /** Default: 127.0.0.1. Any address other than loopback needs a token. */
  readonly host?: string
  /**
   * Listen on this Unix socket (mode 0600) instead of a port: only this account can connect, so no
   * token is needed unless one is given.
   */
  readonly socket?: string
  /**
   * Every request must carry `Authorization: Bearer <token>`. Default: one is made up (`token` of the
   * server says which), except on a socket. `false`: none, on loopback only (any local account can
   * then use the server as this one).
   */
  readonly token?: string | false
}

/** The MCP endpoint as a fetch handler, for a server that routes `/mcp` to it (`toolbelt serve`). */
export interface McpHandler {
  /** Answers one request of the endpoint; the caller has already checked who sent it (`refuse`). */
  handle(request: Request): Promise<Response>
  /** Open MCP sessions. */
  readonly sessions: number
  /** What is kept for clients that reconnect, over all sessions. */
  readonly replayable: Replayable
  /** Ends every session. */
  close(): Promise<void>
}

export interface McpHttpServer {
  /** The endpoint, e.g. `http://127.0.0.1:3917/mcp` (`http://localhost/mcp` over a socket). */
  readonly url: string
  /** The token requests need (made up when none was given), or none. */
  readonly token: string | undefined
  /** The socket's path, when listening on one. */
  readonly socket?: string
  /** Open MCP sessions (one per client connection). */
  readonly sessions: number
  /** What is kept for clients that reconnect, over all sessions. */
  readonly replayable: Replayable
  close(): Promise<void>
}

/** The sent messages kept for replay. */
export interface Replayable {
  readonly events: number
  readonly bytes: number
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly mcp: ToolbeltMcpServer
  /** What was sent on its streams, for a client that reconnects with `Last-Event-ID`. */
  readonly events: SessionEvents
  /** The revision negotiated at `initialize`. */
  readonly version: () => string | undefined
  /**
   * Closes the SDK server: its transport and streams, and (through it) the toolbelt session; then
   * lets go of its kept events.
   */
  end(): Promise<void>
}

export class HttpServeError extends Error {
  override readonly name = "HttpServeError"
}

/**
 * Serves MCP over streamable HTTP.
 * 1. Where: a port, or a Unix socket (`listenOn`). The token: the one given; else, on a port, a
 *    random one (another account on this machine reaches a loopback port too); none on a socket,
 *    or when `token` is false, which is refused beyond loopback.
 * 2. Every request passes the guard first (`refuse`: Host, Origin, Sec-Fetch-Site, the bearer token),
 *    the same rules as `toolbelt serve`'s. Only `/mcp` is served.
 * 3. The endpoint itself is `createMcpHandler`.
 * 4. `close` ends every session and the listener, and removes the socket.
 */
export async function serveMcpHttp(options: ServeHttpOptions): Promise<McpHttpServer> {
  // 1. Where, and the token.
  const { bind, token, host } = planListen(options, (message) => new HttpServeError(message))
  const guard = { host, ...(token ? { token } : {}) }
  const endpoint = createMcpHandler(options)

  const handle = (request: Request): Promise<Response> | Response => {
    // 2. The guard.
    const refused = refuse(request, guard)
    if (refused) return refused
    const url = new URL(request.url)
    if (url.pathname !== MCP_PATH && url.pathname !== `${MCP_PATH}/`) {
      return jsonRpcRefusal(404, `Not found: the MCP endpoint is ${MCP_PATH}.`)
    }
    // 3. The endpoint.
    return endpoint.handle(request)
  }

  const server = createAdaptorServer({ fetch: handle, overrideGlobalObjects: false })
  let listening: Listening
  try {
    listening = await listenOn(server, bind)
  } catch (error) {
    await endpoint.close()
    if (error instanceof ListenError) throw new HttpServeError(error.message)
    throw error
  }
  server.on("error", (error) => log.error("HTTP server error", { error: String(error) }))
  const url =
    listening.socket === undefined
      ? `http://${listening.host}:${listening.port}${MCP_PATH}`
      : `http://localhost${MCP_PATH}`

  return {
    url,
    token,
    ...(listening.socket === undefined ? {} : { socket: listening.socket }),
    get sessions() {
      return endpoint.sessions
    },
    get replayable() {
      return endpoint.replayable
    },
    async close() {
      // 4. Every session, then the listener.
      await endpoint.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      })
      await listening.release()
    },
  }
}

/**
 * The MCP endpoint: requests that passed the guard, in, responses out.
 * 1. A POST body is read here, up to the size limit (413 with the limit and how to raise it), and
 *    must be JSON-RPC (-32700 for text that is not JSON, -32600 for JSON that is not JSON-RPC, or
 *    for a batch outside 2025-03-26) before the SDK's transport sees it.
 * 2. An `initialize` request opens an MCP session (`Mcp-Session-Id`) with its own toolbelt session;
 *    later requests of the session (POST, the GET event stream, DELETE) go to its transport.
 * 3. Sessions end by DELETE, by idleness or to make room (`SessionTable`); ending one aborts its
 *    calls, kills their processes and its background jobs, and lets go of its server. Its id then
 *    gets 404, which tells MCP clients to initialize again. A request holds its session in use from
 *    its first byte to its answer's last, so no body that arrives slowly sees its session expire; one
 *    ended otherwise while its body came gets the 404 too, never a stream the ended server would
 *    leave unanswered.
 * 4. A `notifications/cancelled` ends the HTTP response stream of the request it cancels (the
 *    request gets no response, so nothing else would end it).
 * 5. The 2026-07-28 revision has no sessions, and a toolbelt session (read ledger, approvals) must
 *    span the calls of a client, so its requests are answered with the protocol versions served
 *    here: negotiating clients fall back to `initialize`.
 * 6. Streams are resumable: every message sent on them is kept for a while (`ReplayStore`, bounded
 *    per session and in total, dropped with the session), each SSE event carries its id, and a
 *    client whose stream dropped reconnects with `GET` and `Last-Event-ID` to get what came after,
 *    then the rest of the call live. One resume replays at most 1 MiB and then ends, and the client
 *    resumes again from its last event. An id the session does not keep, or the stream of a
 *    cancelled request, is refused here with why.
 */
export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  const settings = mcpSettings(options.toolbelt.config)
  const maxRequestBytes = options.maxRequestBytes ?? settings.maxRequestBytes
  const sessions = new SessionTable<Session>({
    idleMs: options.sessionIdleMs ?? settings.sessionIdleMs,
    maxSessions: options.maxSessions ?? settings.maxSessions,
    onEnd: (id, reason) => log.debug("MCP session ended", { id, reason }),
  })
  const replay = new ReplayStore(options.replayLimits)
  // Calls in flight, per session and over all of them.
  const calls = new CallGate(callLimitsOf(settings))
  // 2. A new session.
  const open = async (request: Request, body: unknown): Promise<Response> => {
    let session: Session | undefined
    const events = replay.forSession()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxRequestBytes,
      eventStore: events,
      onsessioninitialized: (id) => {
        if (session) sessions.add(id, session)
      },
      onsessionclosed: (id) => sessions.end(id, "deleted"),
    })
    relateSends(transport)
    const version = trackProtocolVersion(transport)
    const sessionID = ascending("ses")
    const mcp = await createMcpServer(options.toolbelt, {
      session: sessionID,
      protocolVersion: version,
      calls: calls.forSession(),
      ...(options.agent ? { agent: options.agent } : {}),
      ...(options.ask ? { ask: options.ask } : {}),
      ...(options.answerTimeoutMs ? { answerTimeoutMs: options.answerTimeoutMs } : {}),
    })
    const end = async () => {
      try {
        await mcp.server.close()
      } finally {
        events.end()
      }
    }
    session = { transport, mcp, events, version, end }
    transport.onclose = () => {
      if (transport.sessionId) void sessions.end(transport.sessionId, "closed")
    }
    await mcp.server.connect(transport)
    const response = await relating(requestIds(body), () =>
      transport.handleRequest(request, { parsedBody: body }),
    )
    // An initialize that failed opened nothing.
    const id = transport.sessionId
    if (!id || sessions.get(id) !== session) {
      await end()
      return response
    }
    const client = mcp.server.server.getClientVersion()?.name
    options.onSessionOpened?.({ sessionID, ...(client ? { client } : {}) })
    return whileSent(response, sessions.use(id))
  }

  const handle = async (request: Request): Promise<Response> => {
    const id = request.headers.get("mcp-session-id")
    const session = id ? sessions.get(id) : undefined
    if (id && !session) return sessionNotFound(sessions.endedBecause(id))
    if (!id || !session) return respond(request)
    // The session is in use from the request's first byte to its answer's last: a body that arrives
    // slower than the idle limit must not see its session end under it.
    const release = sessions.use(id)
    try {
      return whileSent(await respond(request, { id, session }), release)
    } catch (error) {
      release()
      throw error
    }
  }

  /** The answer to a request, of a session in use (`live`) or of none yet. */
  const respond = async (request: Request, live?: { id: string; session: Session }): Promise<Response> => {
    if (!live && request.method !== "POST") {
      return jsonRpcRefusal(
        400,
        "Bad Request: no Mcp-Session-Id header. Start a session with an initialize request.",
      )
    }

    // 1. The body.
    let read: ReadBody | undefined
    if (request.method === "POST") {
      const body = await readRequestBody(request, maxRequestBytes).catch(() => undefined)
      if (!body) return jsonRpcRefusal(400, "Bad Request: the request body could not be read.")
      if (body.tooLarge) return tooLarge(maxRequestBytes)
      read = readText(body.text, live?.session.version())
      if (read.kind === "refused") return jsonRpcError(400, read)
    }
    const messages = read?.kind === "message" ? [read.message] : read?.kind === "batch" ? read.messages : []
    const parsedBody =
      read?.kind === "message" ? read.message : read?.kind === "batch" ? read.messages : undefined

    // A request of an open session.
    if (live) {
      const { id, session } = live
      // Ended while its body came (deleted, or evicted to make room): gone, like any ended session.
      if (sessions.get(id) !== session) return sessionNotFound(sessions.endedBecause(id))
      // 6. A client resuming a stream.
      const resumed = request.method === "GET" ? request.headers.get("last-event-id") : null
      const resumption = resumed ? session.events.resumption(resumed) : "replay"
      if (resumed && resumption !== "replay") return notResumable(resumed, resumption)
      const response = await relating(requestIds(parsedBody), () =>
        session.transport.handleRequest(request, { parsedBody }),
      )
      // 4. Cancelled requests: their streams end, for good.
      for (const cancelled of cancelledRequests(messages)) {
        session.events.cancel(cancelled)
        session.transport.closeSSEStream(cancelled)
      }
      return response
    }
    if (messages.some((message) => isInitializeRequest(message))) return open(request, parsedBody)

    // 5. The 2026-07-28 revision: answered with the versions this server speaks.
    if (!(await isLegacyRequest(request, parsedBody))) {
      const first = messages[0] as { id?: unknown } | undefined
      const error = new UnsupportedProtocolVersionError({
        supported: [...PROTOCOL_VERSIONS],
        requested: requestedVersion(parsedBody) ?? "unknown",
      })
      return new Response(
        JSON.stringify({
          jsonrpc: "2.0",
          id: first?.id ?? null,
          error: {
            code: error.code,
            message: `${error.message}. This server speaks the initialize revisions.`,
            data: error.data,
          },
        }),
        { status: 400, headers: { "content-type": "application/json" } },
      )
    }
    return jsonRpcRefusal(
      400,
      "Bad Request: no Mcp-Session-Id header. Start a session with an initialize request.",
    )
  }

  return {
    handle,
    get sessions() {
      return sessions.size
    },
    get replayable() {
      return { events: replay.events, bytes: replay.bytes }
    },
    close: () => sessions.endAll(),
  }
}
