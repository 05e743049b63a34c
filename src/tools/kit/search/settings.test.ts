import { describe, expect, it } from "vitest"
import { codesearchSettings, DEFAULT_SEARCH_TIMEOUT_MS, websearchSettings } from "./settings.ts"

describe("websearchSettings", () => {
  it.each([
    [
      "a named provider without a key (Exa works keyless)",
      { websearch: { provider: "exa" } },
      {},
      { provider: "exa", url: "https://mcp.exa.ai/mcp", apiKey: undefined },
    ],
    [
      "a named provider takes its key from the environment",
      { websearch: { provider: "parallel" } },
      { PARALLEL_API_KEY: "p" },
      { provider: "parallel", apiKey: "p" },
    ],
    [
      "no provider named: the first key found picks it",
      {},
      { TAVILY_API_KEY: "t", BRAVE_API_KEY: "b" },
      { provider: "tavily", url: "https://api.tavily.com/search", apiKey: "t" },
    ],
    ["no provider named: Brave by its key", {}, { BRAVE_API_KEY: "b" }, { provider: "brave", apiKey: "b" }],
    [
      "the config's provider beats a key of another",
      { websearch: { provider: "searxng", url: "http://localhost:8888" } },
      { EXA_API_KEY: "e" },
      { provider: "searxng", url: "http://localhost:8888", apiKey: undefined },
    ],
    [
      "url and timeout from the config",
      { websearch: { provider: "exa", url: "http://127.0.0.1:1/mcp", timeout: 5000 } },
      {},
      { url: "http://127.0.0.1:1/mcp", timeoutMs: 5000 },
    ],
    [
      "the default timeout is 25 s",
      { websearch: { provider: "exa" } },
      {},
      { timeoutMs: DEFAULT_SEARCH_TIMEOUT_MS },
    ],
  ])("%s", (_name, config, env, expected) => {
    expect(websearchSettings(config, env)).toMatchObject(expected)
  })

  it.each([
    ["nothing configured", {}, {}, /^no search provider is configured: set "websearch"/],
    ["an empty key is no key", {}, { EXA_API_KEY: "" }, /^no search provider is configured/],
    [
      "an unknown provider",
      { websearch: { provider: "google" } },
      {},
      /^"websearch.provider" is "google", not one of exa, parallel, tavily, brave, searxng$/,
    ],
    ["SearXNG without its URL", { websearch: { provider: "searxng" } }, {}, /needs "websearch.url"/],
    [
      "Brave without its key",
      { websearch: { provider: "brave" } },
      {},
      /^the brave search provider needs an API key: set BRAVE_API_KEY$/,
    ],
    [
      "a URL that is not http",
      { websearch: { provider: "searxng", url: "ftp://x" } },
      {},
      /is not an http\(s\) URL/,
    ],
    [
      "a bad timeout",
      { websearch: { provider: "exa", timeout: "soon" } },
      {},
      /"websearch.timeout" must be a number/,
    ],
    [
      "a section that is not an object",
      { websearch: "exa" },
      {},
      /"websearch" in the config must be an object/,
    ],
  ])("not offered: %s", (_name, config, env, reason) => {
    const resolved = websearchSettings(config, env)
    expect("reason" in resolved && resolved.reason).toMatch(reason)
  })
})

describe("codesearchSettings", () => {
  it.each([
    [
      "its own section",
      { codesearch: { provider: "exa" } },
      {},
      { provider: "exa", url: "https://mcp.exa.ai/mcp" },
    ],
    [
      "websearch's Exa, with its URL",
      { websearch: { provider: "exa", url: "http://x/mcp" } },
      {},
      { url: "http://x/mcp" },
    ],
    [
      "its own URL beats websearch's",
      { websearch: { provider: "exa", url: "http://x/mcp" }, codesearch: { url: "http://y/mcp" } },
      {},
      { url: "http://y/mcp" },
    ],
    ["EXA_API_KEY alone", {}, { EXA_API_KEY: "e" }, { provider: "exa", apiKey: "e" }],
  ])("offered through %s", (_name, config, env, expected) => {
    expect(codesearchSettings(config, env)).toMatchObject(expected)
  })

  it("is not offered through another provider", () => {
    const resolved = codesearchSettings({ codesearch: { provider: "brave" } }, {})
    expect("reason" in resolved && resolved.reason).toMatch(/only offered through "exa"/)
    const none = codesearchSettings({ websearch: { provider: "tavily" } }, { TAVILY_API_KEY: "t" })
    expect("reason" in none && none.reason).toMatch(/^code search goes through Exa, which is not configured/)
  })
})
