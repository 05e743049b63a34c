import { Client, SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import type { McpServerConfig } from "./config.ts"

/** How toolbelt reached a server. */
export type McpTransportKind = "stdio" | "streamable-http" | "sse"

export interface OpenedClient {
  readonly client: Client
  readonly transport: McpTransportKind
}

export interface OpenClientOptions {
  readonly name: string
  readonly config: McpServerConfig
  /** The working directory of a local server. */
  readonly directory: string
  /** The environment a local server starts from (its `environment` is added over it). */
  readonly env: NodeJS.ProcessEnv
  readonly timeoutMs: number
  /** Each chunk a local server writes to stderr. */
  readonly onStderr?: (chunk: string) => void
  readonly version: string
}

/**
 * Connects an MCP client to one server and completes the handshake within `timeoutMs`.
 * 1. A local server is started with its command, in `directory`, with toolbelt's environment plus
 *    its own; its stderr is piped to `onStderr`, never inherited (stdout is the protocol).
 * 2. A remote server is tried with Streamable HTTP first and, when that fails, with the legacy
 *    HTTP+SSE transport on a fresh client; when both fail the error names both attempts.
 * A client that fails to connect is closed (its process ended) before the error is thrown.
 */
export async function openClient(options: OpenClientOptions): Promise<OpenedClient> {
  const { config } = options
  if (config.type === "local") {
    const [command, ...args] = config.command
    const transport = new StdioClientTransport({
      command: command!,
      args,
      env: { ...definedOnly(options.env), ...(config.environment ?? {}) },
      cwd: options.directory,
      stderr: "pipe",
    })
    transport.stderr?.on("data", (chunk: Buffer | string) => options.onStderr?.(String(chunk)))
    return { client: await connect(transport, options), transport: "stdio" }
  }

  const url = new URL(config.url)
  const requestInit: RequestInit = config.headers ? { headers: { ...config.headers } } : {}
  const started = Date.now()
  try {
    const transport = new StreamableHTTPClientTransport(url, { requestInit })
    return { client: await connect(transport, options), transport: "streamable-http" }
  } catch (streamable) {
    const left = options.timeoutMs - (Date.now() - started)
    if (left <= 0) throw streamable
    try {
      const transport = new SSEClientTransport(url, { requestInit })
      return { client: await connect(transport, { ...options, timeoutMs: left }), transport: "sse" }
    } catch (sse) {
      throw new Error(
        `Streamable HTTP failed (${message(streamable)}), and so did the legacy SSE transport (${message(sse)}).`,
        { cause: streamable },
      )
    }
  }
}

async function connect(
  transport: StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport,
  options: OpenClientOptions,
): Promise<Client> {
  const client = new Client({ name: "toolbelt", version: options.version })
  try {
    await client.connect(transport, { timeout: options.timeoutMs })
    return client
  } catch (error) {
    await client.close().catch(() => {})
    throw error
  }
}

/**
 * Ends a connection: a Streamable HTTP session is ended on the server too (a DELETE, given at most
 * 2 s), then the client is closed (a local server's stdin is closed, then it is signalled).
 */
export async function closeClient(client: Client): Promise<void> {
  const transport = client.transport
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      transport.terminateSession().catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 2000)
      }),
    ])
    clearTimeout(timer)
  }
  await client.close().catch(() => {})
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value
  return out
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
