import { realpathSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { resolve } from "node:path"
import { McpPins } from "../../platform/store/mcp-pins.ts"
import type { Store } from "../../platform/store/store.ts"
import { type Logger, logger } from "../../platform/util/log.ts"
import type { Registry } from "../../runtime/registry/registry.ts"
import { parseMcpConfig } from "./config.ts"
import { sanitize } from "./name.ts"
import { type McpServerStatus, ServerConnection } from "./server-connection.ts"

export interface ConnectMcpServersOptions {
  /** The `mcp` key of the config; validated here (`McpConfigError` when it is not an object). */
  readonly config: unknown
  /** Where the servers' tools are registered (project placement, source `mcp:<server>`). */
  readonly registry: Registry
  /** Holds the pins of approved tool definitions (table `mcp_pin`). */
  readonly store: Pick<Store, "db">
  /** The project: local servers run in it, and pins are kept per project (its realpath). */
  readonly directory: string
  readonly log?: Logger
  /** The environment local servers start from (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv
}

export interface McpServers {
  /** Each configured server, in config order, as it is now (a server that stops turns `failed`). */
  readonly servers: readonly McpServerStatus[]
  /**
   * The servers whose tools are not offered because they failed (to start, to connect in time, or
   * later), as `mcp:<server>` with the reason: what `toolbelt tools` lists under "Not offered".
   */
  notOffered(): { name: string; reason: string }[]
  /** What the server behind a tool source (`mcp:<server>`) says it is, when connected and it said anything. */
  about(source: string): string | undefined
  /** Re-lists the tools of every connected server (what `tools/list_changed` does for one). */
  refresh(): Promise<void>
  /** Withdraws every server's tools and ends the connections (local servers are stopped). */
  close(): Promise<void>
}

/**
 * Connects the project's MCP servers and registers their tools.
 * 1. Parses the `mcp` config; a server whose entry is invalid is reported `failed` with the reason.
 * 2. Connects every enabled server at once, each within its `connect_timeout` (default 30 s), and
 *    registers its tools as `<server>_<tool>`; a server that cannot be reached is reported
 *    `failed` (and logged) while the others connect. Servers with `enabled: false` are `disabled`.
 * 3. Keeps them current: `tools/list_changed` re-lists a server's tools; a server that stops has
 *    its tools withdrawn and turns `failed`.
 * Resolves when every server has connected or failed; never rejects for a server's failure.
 */
export async function connectMcpServers(options: ConnectMcpServersOptions): Promise<McpServers> {
  const log = options.log ?? logger("mcp")
  const entries = parseMcpConfig(options.config)
  const directory = realpath(options.directory)
  const pins = new McpPins(options.store.db)
  const version = await ownVersion()

  const prefixes = new Map<string, string>()
  const connections: (ServerConnection | McpServerStatus)[] = entries.map(({ name, config, error }) => {
    if (!config) {
      log.error(error!.message)
      return { name, status: "failed", error: error!.message, tools: [] }
    }
    const prefix = sanitize(name)
    const clash = prefixes.get(prefix)
    if (clash !== undefined && config.enabled !== false) {
      const message = `Invalid config for MCP server "${name}": its tools would be named "${prefix}_*" like those of "${clash}". Rename one of the two servers.`
      log.error(message)
      return { name, status: "failed", error: message, tools: [] }
    }
    if (config.enabled !== false) prefixes.set(prefix, name)
    return new ServerConnection({
      name,
      config,
      registry: options.registry,
      pins,
      projectID: directory,
      directory,
      env: options.env ?? process.env,
      log,
      version,
    })
  })
  const live = connections.filter((item): item is ServerConnection => item instanceof ServerConnection)
  await Promise.all(live.map((connection) => connection.start()))

  const statuses = () => connections.map((item) => (item instanceof ServerConnection ? item.status() : item))
  return {
    get servers() {
      return statuses()
    },
    notOffered() {
      return statuses().flatMap((server) =>
        server.status === "failed" ? [{ name: `mcp:${server.name}`, reason: failureReason(server) }] : [],
      )
    },
    about(source) {
      if (!source.startsWith("mcp:")) return undefined
      return live.find((connection) => connection.name === source.slice(4))?.status().description
    },
    async refresh() {
      await Promise.all(live.map((connection) => connection.refresh()))
    },
    async close() {
      await Promise.all(live.map((connection) => connection.close()))
    },
  }
}

/** Why a failed server's tools are missing, and where a person changes that. */
function failureReason(server: McpServerStatus): string {
  const why = (server.error ?? "it failed").replace(/\.$/, "")
  return `MCP server "${server.name}" is not running: ${why}. Check its entry under "mcp" in toolbelt.json, or set "enabled": false there to stop starting it`
}

function realpath(directory: string): string {
  const absolute = resolve(directory)
  try {
    return realpathSync(absolute)
  } catch {
    return absolute
  }
}

let version: Promise<string> | undefined

/** toolbelt's version, sent as the client's version in the handshake. */
export function ownVersion(): Promise<string> {
  version ??= readFile(new URL("../../../package.json", import.meta.url), "utf8")
    .then((text) => String((JSON.parse(text) as { version?: unknown }).version ?? "0.0.0"))
    .catch(() => "0.0.0")
  return version
}
