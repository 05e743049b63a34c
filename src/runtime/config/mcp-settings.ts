// The `mcp` key of toolbelt.json: the MCP server's settings (the other keys there are MCP servers to use).
import { type Config, ConfigError } from "./config.ts"

/**
 * What happens to a permission ask when the client cannot show it (no elicitation): `reject`, `allow`
 * (once), or `web`: it waits for an answer in `toolbelt serve`'s page (or its API).
 */
export type AskFallback = "reject" | "allow" | "web"

/** An HTTP session nobody used for this long ends (its calls aborted, its processes killed). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000

/** Live HTTP sessions at most; a new one beyond it ends the one idle the longest. */
export const DEFAULT_MAX_SESSIONS = 100

/**
 * The largest HTTP request body. A `write` of a 5 MB file must fit once JSON-escaped (quotes,
 * backslashes and newlines double), with room to spare.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024

/**
 * Tool calls of one MCP session running at once. An agent runs a handful in parallel; each running
 * call holds what it reads and produces (a 45 KB read: about 200 KB of heap), so the bound is what
 * keeps a client that sends thousands at once from taking the machine.
 */
export const DEFAULT_MAX_CALLS_PER_SESSION = 32

/** Tool calls running at once over all the sessions of one server (stdio has one session). */
export const DEFAULT_MAX_CALLS = 128

/**
 * Calls of one session that wait for a free place, beyond those running; one more is refused at
 * once with an error that names the limit. A waiting call holds only its request.
 */
export const DEFAULT_MAX_QUEUED_CALLS = 64

export interface McpSettings {
  /**
   * `reject` (default): the call fails with an error that says how to allow it; `allow`: approved once;
   * `web`: the ask waits for `toolbelt serve`'s page.
   */
  readonly ask: AskFallback
  /** `session_idle_ms`: how long an HTTP session may sit unused before it ends. */
  readonly sessionIdleMs: number
  /** `max_sessions`: live HTTP sessions at most. */
  readonly maxSessions: number
  /** `max_request_bytes`: the largest HTTP request body. */
  readonly maxRequestBytes: number
  /** `max_calls_per_session`: tool calls one session runs at once. */
  readonly maxCallsPerSession: number
  /** `max_calls`: tool calls the server runs at once, over all sessions. */
  readonly maxCalls: number
  /** `max_queued_calls`: calls of one session waiting for a place; more are refused. */
  readonly maxQueuedCalls: number
}

/** The numeric settings: their config key, their default, and what the key means in an error. */
const NUMBERS = [
  ["sessionIdleMs", "session_idle_ms", DEFAULT_SESSION_IDLE_MS, "milliseconds"],
  ["maxSessions", "max_sessions", DEFAULT_MAX_SESSIONS, "sessions"],
  ["maxRequestBytes", "max_request_bytes", DEFAULT_MAX_REQUEST_BYTES, "bytes"],
  ["maxCallsPerSession", "max_calls_per_session", DEFAULT_MAX_CALLS_PER_SESSION, "calls"],
  ["maxCalls", "max_calls", DEFAULT_MAX_CALLS, "calls"],
  ["maxQueuedCalls", "max_queued_calls", DEFAULT_MAX_QUEUED_CALLS, "calls"],
] as const

/** The keys of `mcp` that are server settings, not MCP servers to connect to. */
export const SETTING_KEYS: readonly string[] = ["ask", ...NUMBERS.map(([, key]) => key)]

/**
 * Reads `{"mcp": {"ask": "reject" | "allow" | "web", "session_idle_ms": N, "max_sessions": N,
 * "max_request_bytes": N, "max_calls_per_session": N, "max_calls": N, "max_queued_calls": N}}`; anything else is a config error that says what is allowed.
 */
export function mcpSettings(config: Config): McpSettings {
  const section = config.mcp ?? {}
  if (typeof section !== "object" || section === null || Array.isArray(section)) {
    throw new ConfigError(`Invalid config: "mcp" must be an object, e.g. {"mcp": {"ask": "reject"}}.`)
  }
  const values = section as Record<string, unknown>
  const ask = values.ask ?? "reject"
  if (ask !== "reject" && ask !== "allow" && ask !== "web") {
    throw new ConfigError(
      `Invalid config: "mcp.ask" must be "reject" (the default), "allow" or "web" (answered in the page of "toolbelt serve"), not ${JSON.stringify(ask)}.`,
    )
  }
  const settings: Record<string, unknown> = { ask }
  for (const [name, key, fallback, unit] of NUMBERS) {
    settings[name] = positiveInteger(values[key], `mcp.${key}`, fallback, unit)
  }
  return settings as unknown as McpSettings
}

/** A setting that must be a whole number above zero, or absent (the default). */
export function positiveInteger(value: unknown, name: string, fallback: number, unit: string): number {
  if (value === undefined) return fallback
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value
  throw new ConfigError(
    `Invalid config: "${name}" must be a whole number of ${unit} above 0 (default ${fallback}), not ${JSON.stringify(value)}.`,
  )
}
