import { SETTING_KEYS } from "../../runtime/config/mcp-settings.ts"

/** How long connecting to a server and listing its tools may take, by default (ms). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000

/** How long one tool call may go without a result or a progress notification, by default (ms). */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000

/** The longest delay a Node timer can hold (about 24.8 days); longer timeouts are held at this. */
export const MAX_TIMER_MS = 2_147_483_647

interface Common {
  /** Default true: `false` keeps the server configured but not started. */
  readonly enabled?: boolean
  /** Per tool call, in ms (default 5 minutes); progress notifications restart it. No upper cap. */
  readonly timeout?: number
  /** For connecting and listing tools, in ms (default 30 s). */
  readonly connect_timeout?: number
}

/** A server toolbelt starts and talks to over stdin/stdout. */
export interface McpLocalConfig extends Common {
  readonly type: "local"
  /** The executable and its arguments, e.g. `["npx", "-y", "@modelcontextprotocol/server-github"]`. */
  readonly command: readonly string[]
  /** Added to (and overriding) toolbelt's own environment. */
  readonly environment?: Readonly<Record<string, string>>
}

/** A server reached over Streamable HTTP, falling back to the legacy HTTP+SSE transport. */
export interface McpRemoteConfig extends Common {
  readonly type: "remote"
  readonly url: string
  /** Sent with every request (e.g. `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>
}

/** One entry of the `mcp` key of toolbelt.json (opencode's shape, plus `connect_timeout`). */
export type McpServerConfig = McpLocalConfig | McpRemoteConfig

/** The `mcp` key: server name → server. */
export type McpConfig = Readonly<Record<string, McpServerConfig>>

/** An `mcp` config that cannot be used; the message names the server and says what to fix. */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError"
  /** The server the problem is in; undefined when the `mcp` value itself is wrong. */
  readonly server: string | undefined
  constructor(message: string, server?: string) {
    super(message)
    this.server = server
  }
}

const KEYS = {
  local: ["type", "command", "environment", "enabled", "timeout", "connect_timeout"],
  // `oauth` is opencode's; accepted so shared configs load, but toolbelt does no OAuth flow.
  remote: ["type", "url", "headers", "enabled", "timeout", "connect_timeout", "oauth"],
} as const

/**
 * The servers of an `mcp` config value, each parsed on its own: a server whose entry is wrong comes
 * back as its error, so the others can still be used. Throws `McpConfigError` only when the value
 * itself is not an object of servers.
 */
export function parseMcpConfig(
  value: unknown,
): { name: string; config: McpServerConfig | undefined; error: McpConfigError | undefined }[] {
  if (value === undefined || value === null) return []
  if (!isRecord(value)) {
    throw new McpConfigError(
      `Invalid config: "mcp" must be an object of servers ({"<name>": {"type": "local", "command": [...]}}), got ${kind(value)}.`,
    )
  }
  // `mcp.ask`, `mcp.session_idle_ms`, ... (scalars) are settings of toolbelt's own MCP server, not servers.
  const servers = Object.entries(value).filter(
    ([name, entry]) => !(SETTING_KEYS.includes(name) && !isRecord(entry)),
  )
  return servers.map(([name, entry]) => {
    try {
      return { name, config: parseServerConfig(name, entry), error: undefined }
    } catch (error) {
      if (!(error instanceof McpConfigError)) throw error
      return { name, config: undefined, error }
    }
  })
}

/** Parses one server's entry; throws `McpConfigError` naming the server and the field. */
export function parseServerConfig(name: string, value: unknown): McpServerConfig {
  const fail = (problem: string): never => {
    throw new McpConfigError(`Invalid config for MCP server "${name}": ${problem}`, name)
  }
  if (!isRecord(value)) return fail(`the entry must be an object, got ${kind(value)}.`)
  const type = value.type
  if (type !== "local" && type !== "remote") {
    return fail(
      `"type" must be "local" (a command toolbelt starts) or "remote" (a URL), got ${JSON.stringify(type) ?? "nothing"}.`,
    )
  }
  const unknown = Object.keys(value).filter((key) => !(KEYS[type] as readonly string[]).includes(key))
  if (unknown.length) {
    fail(
      `unknown key ${unknown.map((key) => `"${key}"`).join(", ")}; a ${type} server takes ${KEYS[type].join(", ")}.`,
    )
  }

  const common: { enabled?: boolean; timeout?: number; connect_timeout?: number } = {}
  if (value.enabled !== undefined) {
    if (typeof value.enabled !== "boolean") fail(`"enabled" must be true or false.`)
    common.enabled = value.enabled as boolean
  }
  for (const key of ["timeout", "connect_timeout"] as const) {
    const ms = value[key]
    if (ms === undefined) continue
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms <= 0) {
      fail(`"${key}" must be a positive number of milliseconds, got ${JSON.stringify(ms)}.`)
    }
    common[key] = ms as number
  }

  if (type === "local") {
    const command = value.command
    if (
      !Array.isArray(command) ||
      command.length === 0 ||
      command.some((part) => typeof part !== "string") ||
      command[0] === ""
    ) {
      fail(`"command" must be a non-empty list of strings: the executable, then its arguments.`)
    }
    const environment = stringRecord(value.environment, "environment", fail)
    return {
      type,
      command: [...(command as string[])],
      ...(environment ? { environment } : {}),
      ...common,
    }
  }

  const url = value.url
  if (typeof url !== "string" || !URL.canParse(url)) fail(`"url" must be an absolute http(s) URL.`)
  const protocol = new URL(url as string).protocol
  if (protocol !== "http:" && protocol !== "https:") fail(`"url" must use http or https, got ${protocol}`)
  const headers = stringRecord(value.headers, "headers", fail)
  return { type, url: url as string, ...(headers ? { headers } : {}), ...common }
}

function stringRecord(
  value: unknown,
  key: string,
  fail: (problem: string) => never,
): Record<string, string> | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value) || Object.values(value).some((item) => typeof item !== "string")) {
    fail(`"${key}" must be an object of strings.`)
  }
  return { ...(value as Record<string, string>) }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function kind(value: unknown): string {
  if (Array.isArray(value)) return "a list"
  if (value === null) return "null"
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`
}
