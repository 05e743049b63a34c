import type { Client } from "@modelcontextprotocol/client"
import type { McpPins } from "../../platform/store/mcp-pins.ts"
import type { Logger } from "../../platform/util/log.ts"
import type { Registry } from "../../runtime/registry/registry.ts"
import type { Handle } from "../../runtime/registry/tool-set.ts"
import type { AnyTool } from "../../runtime/tool/tool.ts"
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  MAX_TIMER_MS,
  type McpServerConfig,
} from "./config.ts"
import { listTools } from "./list-tools.ts"
import { type ListedTool, mcpTool } from "./mcp-tool.ts"
import { toolNames } from "./name.ts"
import { closeClient, type McpTransportKind, message, openClient } from "./open-client.ts"

export type McpServerState = "connecting" | "connected" | "failed" | "disabled"

/** One configured server as `connectMcpServers` reports it. */
export interface McpServerStatus {
  readonly name: string
  readonly status: "connected" | "failed" | "disabled"
  /** Why it failed or stopped. */
  readonly error?: string
  /** How it was reached (connected servers). */
  readonly transport?: McpTransportKind
  /** The registered names of its tools (none unless connected). */
  readonly tools: readonly string[]
  /**
   * What the server says it is (connected servers that say): its serverInfo description or title, then
   * its instructions, at most 1,000 characters. Tool search indexes it beside the server's tools.
   */
  readonly description?: string
}

export interface ServerConnectionOptions {
  readonly name: string
  readonly config: McpServerConfig
  readonly registry: Registry
  readonly pins: McpPins
  readonly projectID: string
  readonly directory: string
  readonly env: NodeJS.ProcessEnv
  readonly log: Logger
  readonly version: string
}

const STDERR_TAIL = 2000

/** Characters of a server's own description kept (for the tool search index). */
const DESCRIPTION_MAX = 1000

/** What a server says it is: serverInfo's description (else title), then its instructions. */
function serverDescription(client: Client): string | undefined {
  const info = client.getServerVersion() as { description?: unknown; title?: unknown } | undefined
  const said =
    typeof info?.description === "string"
      ? info.description
      : typeof info?.title === "string"
        ? info.title
        : ""
  const instructions = client.getInstructions() ?? ""
  const text = [said, instructions]
    .map((part) => part.trim())
    .filter(Boolean)
    .join("\n")
  return text ? text.slice(0, DESCRIPTION_MAX) : undefined
}

/**
 * One MCP server for the life of a project: connects, keeps its tools registered, follows
 * `tools/list_changed`, and withdraws its tools when the server stops.
 */
export class ServerConnection {
  readonly name: string
  readonly #options: ServerConnectionOptions
  #state: McpServerState = "connecting"
  #error: string | undefined
  #transport: McpTransportKind | undefined
  #description: string | undefined
  #client: Client | undefined
  #handle: Handle | undefined
  #registered: readonly string[] = []
  #signature = ""
  #stderr = ""
  #closing = false
  #refreshing: Promise<void> | undefined
  #checking = false
  #again = false

  constructor(options: ServerConnectionOptions) {
    this.name = options.name
    this.#options = options
    if (options.config.enabled === false) this.#state = "disabled"
  }

  status(): McpServerStatus {
    const status = this.#state === "connecting" ? "failed" : this.#state
    return {
      name: this.name,
      status,
      ...(this.#error !== undefined ? { error: this.#error } : {}),
      ...(this.#transport && status === "connected" ? { transport: this.#transport } : {}),
      tools: status === "connected" ? [...this.#registered] : [],
      ...(this.#description && status === "connected" ? { description: this.#description } : {}),
    }
  }

  /**
   * Connects and registers the server's tools.
   * 1. Opens the client (local: start the command; remote: Streamable HTTP, then SSE) within the
   *    connect timeout.
   * 2. Lists the tools within the same timeout and registers them in one scoped registration.
   * 3. Watches the connection: `tools/list_changed` re-lists; a closed connection withdraws the tools.
   * Failures are reported in the status and logged, never thrown.
   */
  async start(): Promise<void> {
    if (this.#state === "disabled") return
    const { config, log } = this.#options
    const timeoutMs = clampTimer(config.connect_timeout ?? DEFAULT_CONNECT_TIMEOUT_MS)
    try {
      const opened = await openClient({
        name: this.name,
        config,
        directory: this.#options.directory,
        env: this.#options.env,
        timeoutMs,
        version: this.#options.version,
        onStderr: (chunk) => this.#onStderr(chunk),
      })
      this.#client = opened.client
      this.#transport = opened.transport
      this.#description = serverDescription(opened.client)
      if (this.#closing) {
        await closeClient(opened.client)
        return
      }
      opened.client.onclose = () => this.#lost("the connection closed")
      opened.client.onerror = (error) => {
        log.debug(`MCP server ${this.name}: ${error.message}`)
        // Over HTTP nothing closes when the server goes away: ask whether it is still there.
        if (opened.transport !== "stdio") void this.#check()
      }
      opened.client.setNotificationHandler("notifications/tools/list_changed", () => this.refresh())
      const tools = await this.#list(timeoutMs)
      if (this.#closing) return
      this.#register(tools)
      this.#state = "connected"
      log.info(`MCP server ${this.name} connected over ${opened.transport}`, {
        tools: this.#registered.length,
      })
      if (this.#again) void this.refresh()
    } catch (error) {
      this.#fail(`could not connect: ${this.#explain(error)}`)
      const client = this.#client
      this.#client = undefined
      await client?.close().catch(() => {})
    }
  }

  /**
   * Re-lists the tools and updates the registration (on `tools/list_changed`). Refreshes never
   * overlap: a notification during one runs one more after it.
   */
  refresh(): Promise<void> {
    if (this.#state === "connecting") {
      // Still listing for the first time: list once more when that is done.
      this.#again = true
      return Promise.resolve()
    }
    if (this.#refreshing) {
      this.#again = true
      return this.#refreshing
    }
    this.#refreshing = (async () => {
      do {
        this.#again = false
        if (this.#closing || this.#state !== "connected") break
        try {
          const tools = await this.#list(
            clampTimer(this.#options.config.connect_timeout ?? DEFAULT_CONNECT_TIMEOUT_MS),
          )
          if (this.#closing || this.#state !== "connected") break
          this.#register(tools)
        } catch (error) {
          this.#options.log.warn(
            `MCP server ${this.name}: re-listing tools failed; keeping the previous list`,
            {
              error: message(error),
            },
          )
        }
      } while (this.#again)
    })().finally(() => {
      this.#refreshing = undefined
    })
    return this.#refreshing
  }

  /** Withdraws the tools and ends the connection (a local server's process is stopped). */
  async close(): Promise<void> {
    if (this.#closing) return
    this.#closing = true
    this.#withdraw()
    const client = this.#client
    this.#client = undefined
    if (client) await closeClient(client)
  }

  async #list(timeoutMs: number): Promise<ListedTool[]> {
    return listTools(this.#client!, timeoutMs, (entry) =>
      this.#options.log.warn(`MCP server ${this.name}: a listed tool without a name is left out`, {
        entry: JSON.stringify(entry)?.slice(0, 200),
      }),
    )
  }

  /**
   * Registers the listed tools as one scoped registration, replacing the previous one; an
   * unchanged list keeps the registration it has (so turns that advertised it do not go stale).
   */
  #register(listed: readonly ListedTool[]): void {
    const { registry, pins, projectID, config, log } = this.#options
    const timeoutMs = clampTimer(config.timeout ?? DEFAULT_CALL_TIMEOUT_MS)
    const named = toolNames(
      this.name,
      listed.map((tool) => tool.name),
    )
    const tools: Record<string, AnyTool> = {}
    const prints: string[] = []
    for (const tool of listed) {
      const name = named.get(tool.name)!
      // Never shadow someone else's tool (a built-in, a plugin's, another server's).
      const existing = registry.resolve(name)
      if (existing && existing.source !== this.#source()) {
        log.warn(
          `MCP server ${this.name}: tool ${tool.name} is not registered: ${name} is already registered by ${existing.source}`,
        )
        continue
      }
      let built: ReturnType<typeof mcpTool>
      try {
        built = mcpTool({
          server: this.name,
          name,
          tool,
          client: () => this.#client,
          timeoutMs,
          pins,
          projectID,
        })
      } catch (error) {
        log.warn(`MCP server ${this.name}: tool ${tool.name} is left out`, { error: message(error) })
        continue
      }
      tools[name] = built.tool
      prints.push(`${name}\0${built.fingerprint}`)
    }
    const signature = prints.sort().join("\n")
    if (this.#handle && signature === this.#signature) return
    const previous = this.#handle
    this.#handle = registry.register(tools, { source: this.#source() })
    previous?.close()
    this.#signature = signature
    this.#registered = Object.keys(tools)
  }

  /**
   * After a transport error on a remote server: a ping within the connect timeout (at most 10 s)
   * tells a passing error from a server that is gone; gone, it is handled like a closed connection.
   */
  async #check(): Promise<void> {
    const client = this.#client
    if (this.#checking || this.#closing || this.#state !== "connected" || !client) return
    this.#checking = true
    try {
      const timeout = Math.min(this.#options.config.connect_timeout ?? DEFAULT_CONNECT_TIMEOUT_MS, 10_000)
      await client.ping({ timeout })
    } catch (error) {
      if (this.#client !== client) return
      this.#lost(`it stopped answering (${message(error)})`)
      await client.close().catch(() => {})
    } finally {
      this.#checking = false
    }
  }

  /** The connection is gone without `close()`: the server stopped or the network dropped. */
  #lost(why: string): void {
    if (this.#closing || this.#state === "failed") return
    const wasConnected = this.#state === "connected"
    this.#withdraw()
    this.#client = undefined
    if (wasConnected) this.#fail(`${why}${this.#stderrNote()}; its tools were withdrawn`)
  }

  #withdraw(): void {
    this.#handle?.close()
    this.#handle = undefined
    this.#signature = ""
  }

  #fail(reason: string): void {
    this.#state = "failed"
    this.#error = reason
    this.#options.log.error(`MCP server ${this.name}: ${reason}`)
  }

  #source(): string {
    return `mcp:${this.name}`
  }

  #onStderr(chunk: string): void {
    this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL)
    for (const line of chunk.split("\n")) {
      if (line.trim()) this.#options.log.debug(`MCP server ${this.name} stderr: ${line}`)
    }
  }

  #explain(error: unknown): string {
    return `${message(error)}${this.#stderrNote()}`
  }

  #stderrNote(): string {
    const tail = this.#stderr.trim()
    if (!tail) return ""
    const lines = tail.split("\n").slice(-5).join("\n")
    return ` (its stderr ended with: ${lines})`
  }
}

function clampTimer(ms: number): number {
  return Math.min(Math.max(1, Math.round(ms)), MAX_TIMER_MS)
}
