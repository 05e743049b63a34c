import { describe, expect, it } from "vitest"
import {
  DEFAULT_MAX_CALLS,
  DEFAULT_MAX_CALLS_PER_SESSION,
  DEFAULT_MAX_QUEUED_CALLS,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  mcpSettings,
} from "./mcp-settings.ts"

const defaults = {
  sessionIdleMs: DEFAULT_SESSION_IDLE_MS,
  maxSessions: DEFAULT_MAX_SESSIONS,
  maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES,
  maxCallsPerSession: DEFAULT_MAX_CALLS_PER_SESSION,
  maxCalls: DEFAULT_MAX_CALLS,
  maxQueuedCalls: DEFAULT_MAX_QUEUED_CALLS,
}

describe("mcpSettings", () => {
  it.each([
    ["no mcp key", {}, "reject"],
    ["no ask", { mcp: {} }, "reject"],
    ["reject", { mcp: { ask: "reject" } }, "reject"],
    ["allow", { mcp: { ask: "allow" } }, "allow"],
  ])("%s → %s", (_name, config, ask) => {
    expect(mcpSettings(config)).toEqual({ ask, ...defaults })
  })

  it("defaults to sessions that end after 30 minutes idle, 100 of them, and 16 MiB bodies (a 5 MB write fits)", () => {
    expect(defaults).toEqual({
      sessionIdleMs: 1_800_000,
      maxSessions: 100,
      maxRequestBytes: 16 * 1024 * 1024,
      maxCallsPerSession: 32,
      maxCalls: 128,
      maxQueuedCalls: 64,
    })
  })

  it("reads the HTTP session and body limits", () => {
    const mcp = { session_idle_ms: 5000, max_sessions: 3, max_request_bytes: 1024 }
    expect(mcpSettings({ mcp })).toEqual({
      ask: "reject",
      sessionIdleMs: 5000,
      maxSessions: 3,
      maxRequestBytes: 1024,
      maxCallsPerSession: DEFAULT_MAX_CALLS_PER_SESSION,
      maxCalls: DEFAULT_MAX_CALLS,
      maxQueuedCalls: DEFAULT_MAX_QUEUED_CALLS,
    })
  })

  it('takes "web": asks wait for the page of toolbelt serve', () => {
    expect(mcpSettings({ mcp: { ask: "web" } }).ask).toBe("web")
  })

  it("says what is allowed when the value is wrong", () => {
    expect(() => mcpSettings({ mcp: { ask: "ask" } })).toThrow(
      'Invalid config: "mcp.ask" must be "reject" (the default), "allow" or "web" (answered in the page of "toolbelt serve"), not "ask".',
    )
    expect(() => mcpSettings({ mcp: "allow" })).toThrow('"mcp" must be an object')
    expect(() => mcpSettings({ mcp: { session_idle_ms: "30m" } })).toThrow(
      'Invalid config: "mcp.session_idle_ms" must be a whole number of milliseconds above 0 (default 1800000), not "30m".',
    )
    expect(() => mcpSettings({ mcp: { max_sessions: 0 } })).toThrow(
      '"mcp.max_sessions" must be a whole number',
    )
    expect(() => mcpSettings({ mcp: { max_request_bytes: 1.5 } })).toThrow(
      '"mcp.max_request_bytes" must be a whole number of bytes',
    )
  })
})
