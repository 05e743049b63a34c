// `toolbelt mcp --http PORT`: streamable HTTP, one toolbelt session per MCP session.
import { randomUUID } from "node:crypto"
import type { AddressInfo } from "node:net"
import { createAdaptorServer } from "@hono/node-server"
import {
  isInitializeRequest,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  readRequestBody,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsupportedProtocolVersionError,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server"
import type { Toolbelt } from "../../toolbelt/toolbelt.ts"
import { ascending } from "../../util/id.ts"
import { logger } from "../../util/log.ts"
import { isLoopback, jsonRpcRefusal, refuse } from "./guard.ts"
import { createMcpServer, type ToolbeltMcpServer } from "./server.ts"
import type { AskFallback } from "./settings.ts"

const log = logger("mcp")

/** Where clients send their requests. */
export const MCP_PATH = "/mcp"

export interface ServeHttpOptions {
  readonly toolbelt: Toolbelt
  /** 0 picks a free port. */
  readonly port: number
  /** Default: 127.0.0.1. Any address other than loopback needs a token. */
  readonly host?: string
  /** Every request must carry `Authorization: Bearer <token>`. */
  readonly token?: string
  readonly agent?: string
  readonly ask?: AskFallback
  readonly answerTimeoutMs?: number
}

export interface McpHttpServer {
  /** The endpoint, e.g. `http://127.0.0.1:3917/mcp`. */
  readonly url: string
  /** Open MCP sessions (one per client connection). */
  readonly sessions: number
  close(): Promise<void>
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly mcp: ToolbeltMcpServer
}

export class HttpServeError extends Error {
  override readonly name = "HttpServeError"
}

/**
 * Serves MCP over streamable HTTP.
 * 1. Refuse to bind beyond loopback without a token.
 * 2. Every request passes the guard first: Host and Origin name this machine (or the bound
 *    address), and the bearer token matches when one is set.
 * 3. An `initialize` request opens an MCP session (`Mcp-Session-Id`) with its own toolbelt session;
 *    later requests of the session (POST, the GET event stream, DELETE) go to its transport.
 * 4. The 2026-07-28 revision has no sessions, and a toolbelt session (read ledger, approvals) must
 *    span the calls of a client, so its requests are answered with the protocol versions served
 *    here: negotiating clients fall back to `initialize`.
 * 5. `close` ends every session (aborting its calls) and the listener.
 */
export async function serveMcpHttp(options: ServeHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? "127.0.0.1"
  // 1. No unauthenticated server beyond this machine.
  if (!isLoopback(host) && !options.token) {
    throw new HttpServeError(
      `Binding to ${host} would let other machines run tools: set a token with --token or TOOLBELT_MCP_TOKEN (clients send "Authorization: Bearer <token>"), or bind to 127.0.0.1.`,
    )
  }
  const sessions = new Map<string, Session>()
  const guard = { host, ...(options.token ? { token: options.token } : {}) }

  const open = async (request: Request, body: unknown): Promise<Response> => {
    let session: Session | undefined
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        if (session) sessions.set(id, session)
      },
      onsessionclosed: (id) => {
        sessions.delete(id)
      },
    })
    const mcp = await createMcpServer(options.toolbelt, {
      session: ascending("ses"),
      ...(options.agent ? { agent: options.agent } : {}),
      ...(options.ask ? { ask: options.ask } : {}),
      ...(options.answerTimeoutMs ? { answerTimeoutMs: options.answerTimeoutMs } : {}),
    })
    session = { transport, mcp }
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId)
    }
    await mcp.server.connect(transport)
    const response = await transport.handleRequest(request, { parsedBody: body })
    // An initialize that failed opened nothing.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await mcp.server.close()
    return response
  }

  const handle = async (request: Request): Promise<Response> => {
    // 2. The guard.
    const refused = refuse(request, guard)
    if (refused) return refused
    const url = new URL(request.url)
    if (url.pathname !== MCP_PATH && url.pathname !== `${MCP_PATH}/`) {
      return jsonRpcRefusal(404, `Not found: the MCP endpoint is ${MCP_PATH}.`)
    }

    // 3. A request of an open session.
    const id = request.headers.get("mcp-session-id")
    if (id) {
      const session = sessions.get(id)
      if (!session) {
        return jsonRpcRefusal(
          404,
          "Session not found: it ended or the server restarted. Initialize a new one.",
          {},
          -32001,
        )
      }
      return session.transport.handleRequest(request)
    }
    if (request.method !== "POST") {
      return jsonRpcRefusal(
        400,
        "Bad Request: no Mcp-Session-Id header. Start a session with an initialize request.",
      )
    }
    let body: unknown
    try {
      const read = await readRequestBody(request)
      if (read.tooLarge) return jsonRpcRefusal(413, "Payload too large.")
      body = JSON.parse(read.text)
    } catch (error) {
      return jsonRpcRefusal(400, `Parse error: ${(error as Error).message}`, {}, -32700)
    }
    const messages = Array.isArray(body) ? body : [body]
    if (messages.some((message) => isInitializeRequest(message))) return open(request, body)

    // 4. The 2026-07-28 revision: answered with the versions this server speaks.
    if (!(await isLegacyRequest(request, body))) {
      const first = messages[0] as { id?: unknown } | undefined
      const error = new UnsupportedProtocolVersionError({
        supported: [...SUPPORTED_PROTOCOL_VERSIONS],
        requested: requestedVersion(body) ?? "unknown",
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

  const server = createAdaptorServer({ fetch: handle, overrideGlobalObjects: false })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  server.on("error", (error) => log.error("HTTP server error", { error: String(error) }))
  const address = server.address() as AddressInfo
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address
  const url = `http://${shown}:${address.port}${MCP_PATH}`

  return {
    url,
    get sessions() {
      return sessions.size
    },
    async close() {
      const open = [...sessions.values()]
      sessions.clear()
      await Promise.all(open.map((session) => session.mcp.server.close().catch(() => {})))
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      })
    },
  }
}

/** The protocol version a 2026-07-28 request claims in its `_meta` envelope. */
function requestedVersion(body: unknown): string | undefined {
  const first = (Array.isArray(body) ? body[0] : body) as
    | { params?: { _meta?: Record<string, unknown> } }
    | undefined
  const version = first?.params?._meta?.[PROTOCOL_VERSION_META_KEY]
  return typeof version === "string" ? version : undefined
}
