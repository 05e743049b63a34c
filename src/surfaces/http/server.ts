// `toolbelt serve`'s server: one listener for the API, the event stream, the page and MCP.
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { createAdaptorServer } from "@hono/node-server"
import type { ResolvedModel } from "../../adapters/ai/provider.ts"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import { logger } from "../../platform/util/log.ts"
import { type AskFallback, mcpSettings } from "../../runtime/config/mcp-settings.ts"
import { DEFAULT_AGENT } from "../../runtime/permission/agents/agent.ts"
import { isLoopback } from "../mcp-server/guard.ts"
import { createMcpHandler } from "../mcp-server/http.ts"
import { Access } from "./access.ts"
import { createApp } from "./app.ts"
import { EventLog } from "./event-log.ts"
import { SessionIndex } from "./session-index.ts"

const log = logger("serve")

export interface ServeOptions {
  readonly toolbelt: Toolbelt
  /** 0 picks a free port. */
  readonly port: number
  /** Default: 127.0.0.1. Any other address needs a token (one is made when none is given). */
  readonly host?: string
  /** Requests need it (or the page's cookie). Default: none on loopback, a random one elsewhere. */
  readonly token?: string
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
  /** The server's address, e.g. `http://127.0.0.1:4517`. */
  readonly url: string
  /** The page's address; with a token, the one-time login link (until it is used). */
  readonly pageURL: string
  /** The token requests need, if any (made up when binding beyond loopback without one). */
  readonly token: string | undefined
  readonly events: EventLog
  close(): Promise<void>
}

export class ServeError extends Error {
  override readonly name = "ServeError"
}

/**
 * Starts the server.
 * 1. The token: the one given; else, bound beyond loopback, a random one (as Jupyter does), since
 *    every other machine that reaches the address could otherwise run tools.
 * 2. The event log and the session index start following the bus before anything can publish.
 * 3. The MCP endpoint, whose asks wait for the page when the client cannot show them (`mcp.ask`
 *    "web", unless the config says otherwise).
 * 4. The app, then the listener; a port in use is a `ServeError` that says what to do.
 * 5. `close`: MCP sessions end, the listener and every open stream close, the log stops.
 */
export async function serveHttp(options: ServeOptions): Promise<ToolbeltServer> {
  const { toolbelt } = options
  const host = options.host ?? "127.0.0.1"
  // 1. The token.
  const token = options.token ?? (isLoopback(host) ? undefined : randomBytes(24).toString("base64url"))
  const access = new Access({ host, ...(token ? { token } : {}) })
  const settings = mcpSettings(toolbelt.config)
  const configuredAsk = (toolbelt.config.mcp as { ask?: unknown } | undefined)?.ask !== undefined
  const agent = options.agent ?? DEFAULT_AGENT

  // 2. Events and sessions.
  const events = new EventLog({
    bus: toolbelt.bus,
    ...(options.eventCapacity ? { capacity: options.eventCapacity } : {}),
  })
  const sessions = new SessionIndex({
    store: toolbelt.store,
    bus: toolbelt.bus,
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
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(options.port, host, () => {
        server.off("error", reject)
        resolve()
      })
    })
  } catch (error) {
    events.close()
    sessions.close()
    await mcp.close()
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
  const address = server.address() as AddressInfo
  access.listening(address.port)
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address
  const url = `http://${isWildcard(address.address) ? "127.0.0.1" : shown}:${address.port}`

  let closed: Promise<void> | undefined
  return {
    url,
    get pageURL() {
      const code = access.loginCode
      return code ? `${url}/?login=${code}` : `${url}/`
    },
    token,
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
      })()
      return closed
    },
  }
}

function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "::"
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
