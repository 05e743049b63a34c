// `toolbelt serve`'s server: one listener for the API, the event stream, the page and MCP.
import { readFileSync } from "node:fs"
import { createAdaptorServer } from "@hono/node-server"
import type { ResolvedModel } from "../../adapters/ai/provider.ts"
import { internals } from "../../compose/internals.ts"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import { logger } from "../../platform/util/log.ts"
import { type AskFallback, mcpSettings } from "../../runtime/config/mcp-settings.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"
import { createMcpHandler } from "../mcp-server/http.ts"
import { ListenError, type Listening, listenOn, planListen } from "../mcp-server/http-listen.ts"
import { Access } from "./access.ts"
import { createApp } from "./app.ts"
import type { EventLog } from "./event-log.ts"
import { eventLogFor } from "./fleet-events.ts"
import { SessionIndex } from "./session-index.ts"

const log = logger("serve")

export interface ServeOptions {
  readonly toolbelt: Toolbelt
  /** The TCP port (0 picks a free one); give this or `socket`. */
  readonly port?: number
  /** Default: 127.0.0.1. */
  readonly host?: string
  /**
   * Listen on this Unix socket (mode 0600) instead of a port: only this account can connect, so no
   * token is needed unless one is given.
   */
  readonly socket?: string
  /**
   * Requests need it (or the page's cookie). Default: a random one on a port (any local account
   * reaches loopback), none on a socket. `false`: none, on loopback only.
   */
  readonly token?: string | false
  /** The agent calls run as (default: build). */
  readonly agent?: string
  /** The model agent turns use, with the spec it was made from (`provider/id`). */
  readonly model?: ResolvedModel & { readonly spec: string }
  /** What an MCP client's ask becomes when it cannot show it (default: `mcp.ask`, else `web`). */
  readonly ask?: AskFallback
  /** How often a quiet event stream gets a heartbeat (default 15 s). */
  readonly heartbeatMs?: number
  /** Events held for clients that reconnect (default 20,000). */
  readonly eventCapacity?: number
}

export interface ToolbeltServer {
  /** The server's address, e.g. `http://127.0.0.1:4517` (`http://localhost` over a socket). */
  readonly url: string
  /** The page's address; with a token, the one-time login link (until it is used). */
  readonly pageURL: string
  /** The token requests need (made up when none was given), or none. */
  readonly token: string | undefined
  /** The socket's path, when listening on one. */
  readonly socket?: string
  readonly events: EventLog
  close(): Promise<void>
}

export class ServeError extends Error {
  override readonly name = "ServeError"
}

/**
 * Starts the server.
 * 1. Where (a port, or a Unix socket of mode 0600) and the token: the one given; else, on a port, a
 *    random one (as Jupyter does), since every other account on this machine, and every machine
 *    that reaches a wider address, could otherwise run tools as this one; none on a socket, or when
 *    `token` is false (loopback only).
 * 2. The event log and the session index start following the bus before anything can publish.
 * 3. The MCP endpoint, whose asks wait for the page when the client cannot show them (`mcp.ask`
 *    "web", unless the config says otherwise).
 * 4. The app, then the listener; a port in use is a `ServeError` that says what to do.
 * 5. `close`: MCP sessions end, the listener and every open stream close, the log stops, the socket
 *    goes.
 */
export async function serveHttp(options: ServeOptions): Promise<ToolbeltServer> {
  const { toolbelt } = options
  // 1. Where, and the token.
  const { bind, token, host } = planListen(options, (message) => new ServeError(message))
  const access = new Access({ host, ...(token ? { token } : {}) })
  const settings = mcpSettings(toolbelt.config)
  const configuredAsk = (toolbelt.config.mcp as { ask?: unknown } | undefined)?.ask !== undefined
  const agent = options.agent ?? DEFAULT_AGENT

  // 2. Events and sessions.
  const events = eventLogFor({
    bus: internals(toolbelt).bus,
    store: internals(toolbelt).store,
    ...(options.eventCapacity ? { capacity: options.eventCapacity } : {}),
  })
  const sessions = new SessionIndex({
    store: internals(toolbelt).store,
    bus: internals(toolbelt).bus,
    projectID: toolbelt.directory,
  })

  // 3. MCP.
  const mcp = createMcpHandler({
    toolbelt,
    agent,
    ask: options.ask ?? (configuredAsk ? settings.ask : "web"),
    onSessionOpened: ({ sessionID, client }) =>
      sessions.opened(sessionID, `MCP: ${client ?? "client"}`, agent),
  })

  // 4. App and listener.
  const app = createApp({
    toolbelt,
    events,
    sessions,
    access,
    model: options.model,
    agent,
    version: packageVersion(),
    heartbeatMs: options.heartbeatMs,
    mcp,
    bind: { host, ...(token ? { token } : {}) },
    maxRequestBytes: settings.maxRequestBytes,
  })
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false })
  let listening: Listening
  try {
    listening = await listenOn(server, bind)
  } catch (error) {
    events.close()
    sessions.close()
    await mcp.close()
    if (error instanceof ListenError) throw new ServeError(error.message)
    const code = (error as NodeJS.ErrnoException).code
    if (code === "EADDRINUSE") {
      throw new ServeError(
        `Port ${options.port} on ${host} is in use (another toolbelt serve?): pass --port N, or --port 0 for any free port.`,
      )
    }
    if (code === "EADDRNOTAVAIL" || code === "EACCES") {
      throw new ServeError(
        `Cannot listen on ${host}:${options.port} (${code}): pick another --host or --port.`,
      )
    }
    throw error
  }
  server.on("error", (error) => log.error("HTTP server error", { error: String(error) }))
  access.listening(listening.port)
  const url =
    listening.socket !== undefined
      ? "http://localhost"
      : `http://${isWildcard(listening.host) ? "127.0.0.1" : listening.host}:${listening.port}`

  let closed: Promise<void> | undefined
  return {
    url,
    get pageURL() {
      const code = access.loginCode
      return code ? `${url}/?login=${code}` : `${url}/`
    },
    token,
    ...(listening.socket === undefined ? {} : { socket: listening.socket }),
    events,
    close() {
      // 5. Everything, once.
      closed ??= (async () => {
        await mcp.close()
        events.close()
        sessions.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
        })
        await listening.release()
      })()
      return closed
    },
  }
}

function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "[::]"
}

function packageVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
        version: string
      }
    ).version
  } catch {
    return "0.0.0"
  }
}
