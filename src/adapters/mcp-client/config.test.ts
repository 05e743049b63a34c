import { describe, expect, it } from "vitest"
import { McpConfigError, parseMcpConfig, parseServerConfig } from "./config.ts"

describe("parseServerConfig", () => {
  it.each([
    [
      "a local server",
      { type: "local", command: ["npx", "-y", "server"], environment: { TOKEN: "t" } },
      { type: "local", command: ["npx", "-y", "server"], environment: { TOKEN: "t" } },
    ],
    [
      "a remote server with headers and timeouts",
      {
        type: "remote",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer x" },
        timeout: 600_000,
        connect_timeout: 5_000,
        enabled: true,
      },
      {
        type: "remote",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer x" },
        timeout: 600_000,
        connect_timeout: 5_000,
        enabled: true,
      },
    ],
    [
      "opencode's oauth key (accepted, not used)",
      { type: "remote", url: "http://127.0.0.1:1/mcp", oauth: false },
      { type: "remote", url: "http://127.0.0.1:1/mcp" },
    ],
    [
      "a timeout longer than 5 minutes (no hidden cap)",
      { type: "local", command: ["x"], timeout: 3_600_000 },
      { type: "local", command: ["x"], timeout: 3_600_000 },
    ],
  ])("accepts %s", (_, entry, parsed) => {
    expect(parseServerConfig("s", entry)).toEqual(parsed)
  })

  it.each([
    ["an entry that is not an object", "npx server", "the entry must be an object, got string"],
    ["a missing type", { command: ["x"] }, '"type" must be "local"'],
    ["an unknown type", { type: "stdio", command: ["x"] }, 'got "stdio"'],
    ["a command as a string", { type: "local", command: "npx server" }, '"command" must be a non-empty list'],
    ["an empty command", { type: "local", command: [] }, '"command" must be a non-empty list'],
    ["a command with a number", { type: "local", command: ["x", 1] }, '"command" must be a non-empty list'],
    [
      "an environment of numbers",
      { type: "local", command: ["x"], environment: { A: 1 } },
      '"environment" must',
    ],
    ["a typo", { type: "local", comand: ["x"] }, 'unknown key "comand"'],
    ["a url on a local server", { type: "local", command: ["x"], url: "http://x" }, 'unknown key "url"'],
    ["a relative url", { type: "remote", url: "/mcp" }, '"url" must be an absolute http(s) URL'],
    ["a non-http url", { type: "remote", url: "ftp://example.com" }, '"url" must use http or https'],
    ["headers of numbers", { type: "remote", url: "http://x", headers: { A: 1 } }, '"headers" must'],
    ["a zero timeout", { type: "local", command: ["x"], timeout: 0 }, '"timeout" must be a positive number'],
    ["a string timeout", { type: "local", command: ["x"], timeout: "5m" }, '"timeout" must be a positive'],
    [
      "a negative connect timeout",
      { type: "local", command: ["x"], connect_timeout: -1 },
      '"connect_timeout"',
    ],
    [
      "enabled as a string",
      { type: "local", command: ["x"], enabled: "no" },
      '"enabled" must be true or false',
    ],
  ])("rejects %s, naming the server", (_, entry, problem) => {
    let error: unknown
    try {
      parseServerConfig("github", entry)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(McpConfigError)
    expect((error as McpConfigError).server).toBe("github")
    expect((error as Error).message).toContain('Invalid config for MCP server "github": ')
    expect((error as Error).message).toContain(problem)
  })
})

describe("parseMcpConfig", () => {
  it("parses each server on its own: one bad entry does not hide the others", () => {
    const parsed = parseMcpConfig({
      good: { type: "local", command: ["x"] },
      bad: { type: "local" },
    })
    expect(parsed.map(({ name, config, error }) => [name, config?.type, error?.server])).toEqual([
      ["good", "local", undefined],
      ["bad", undefined, "bad"],
    ])
  })

  it("nothing configured is no servers", () => {
    expect(parseMcpConfig(undefined)).toEqual([])
    // the MCP server's own setting shares the key and is not a server
    expect(parseMcpConfig({ ask: "reject" })).toEqual([])
    expect(parseMcpConfig({ session_idle_ms: 60_000, max_sessions: 10, max_request_bytes: 1024 })).toEqual([])
    expect(parseMcpConfig({ ask: { type: "local", command: ["x"] } })).toHaveLength(1)
    expect(parseMcpConfig({})).toEqual([])
  })

  it("refuses an mcp value that is not an object of servers", () => {
    expect(() => parseMcpConfig([{ type: "local" }])).toThrow(
      /"mcp" must be an object of servers.*got a list/,
    )
    expect(() => parseMcpConfig("x")).toThrow(McpConfigError)
  })
})
