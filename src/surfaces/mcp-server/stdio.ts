// `toolbelt mcp`: one connection over stdin/stdout, one toolbelt session.
import type { Readable, Writable } from "node:stream"
import type { Transport } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import { saveCodeCache } from "../../platform/util/code-cache.ts"
import { ascending } from "../../platform/util/id.ts"
import { logger } from "../../platform/util/log.ts"
import { type AskFallback, mcpSettings } from "../../runtime/config/mcp-settings.ts"
import { CallGate, callLimitsOf } from "./call-gate.ts"
import { trackProtocolVersion } from "./protocol-versions.ts"
import { createMcpServer } from "./server.ts"
import { DirectCalls } from "./stdio-direct-calls.ts"
import { StdioLineTransport } from "./stdio-lines.ts"

const log = logger("mcp")

export interface ServeStdioOptions {
  readonly toolbelt: Toolbelt
  readonly agent?: string
  readonly ask?: AskFallback
  readonly answerTimeoutMs?: number
  /** Default: the process's stdin and stdout. */
  readonly stdin?: Readable
  readonly stdout?: Writable
  /** Serve this transport instead of stdin/stdout (an in-memory pair in tests). */
  readonly transport?: Transport
  /**
   * Whether well-formed tool calls skip the SDK's dispatch (`DirectCalls`; default true). Off, every
   * message goes through the SDK: what the direct path is compared against.
   */
  readonly directCalls?: boolean
  /** Called once the connection's server is made (its first answer goes out right after). */
  readonly onStarted?: () => void
}

export interface McpStdioServer {
  /** Resolves when the client closed the connection (stdin ended) or `close` was called. */
  readonly closed: Promise<void>
  close(): Promise<void>
}

/**
 * Serves MCP over stdio. The SDK's entry reads the opening message and picks the era: a 2025-era
 * `initialize` (what clients in use send) or a 2026-07-28 `server/discover`; either way one server
 * from `createMcpServer`, with one toolbelt session, is pinned for the connection. The wire answers
 * every line (`StdioLineTransport`: parse errors, invalid requests, 2025-03-26 batches). stdout
 * carries only protocol messages; logs go to stderr.
 */
export function serveMcpStdio(options: ServeStdioOptions): McpStdioServer {
  const wire =
    options.transport ??
    new StdioLineTransport(options.stdin ?? process.stdin, options.stdout ?? process.stdout)
  const protocolVersion = trackProtocolVersion(wire)
  // Calls read while the client is not reading stdout wait to start: their answers would pile up.
  const calls = new CallGate(callLimitsOf(mcpSettings(options.toolbelt.config))).forSession()
  if (wire instanceof StdioLineTransport) wire.onBehind = (behind) => calls.hold(behind)
  const handle = serveStdio(
    async () => {
      const { server, direct } = await createMcpServer(options.toolbelt, {
        session: ascending("ses"),
        protocolVersion,
        calls,
        ...(options.agent ? { agent: options.agent } : {}),
        ...(options.ask ? { ask: options.ask } : {}),
        ...(options.answerTimeoutMs ? { answerTimeoutMs: options.answerTimeoutMs } : {}),
      })
      // The common call is answered straight from its line (`DirectCalls`); the rest through the SDK.
      if (wire instanceof StdioLineTransport && options.directCalls !== false) {
        const directCalls = new DirectCalls({
          server: server.server,
          protocolVersion,
          tool: direct,
          send: (message) => wire.send(message),
          onerror: (error) => log.warn(error.message),
        })
        wire.take = (message) => directCalls.take(message)
        const onclose = server.server.onclose
        server.server.onclose = () => {
          directCalls.close()
          onclose?.()
        }
      }
      // Started from the build, the code compiled so far (start-up, the server) is cached before the
      // first answer goes out: a client may kill the server at any moment after it.
      saveCodeCache()
      options.onStarted?.()
      return server
    },
    { transport: wire, onerror: (error) => log.warn(error.message) },
  )
  // serveStdio owns the wire's callbacks; chain onto its close handler to learn when the client left.
  const { promise: closed, resolve } = Promise.withResolvers<void>()
  const onclose = wire.onclose
  wire.onclose = () => {
    try {
      onclose?.()
    } finally {
      resolve()
    }
  }
  return {
    closed,
    async close() {
      await handle.close()
      resolve()
    },
  }
}
