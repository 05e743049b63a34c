import { describe, expect, it } from "vitest"
import { ConfigError } from "./config-error.ts"
import { closest, KNOWN_KEYS, unknownKeys, withAliases } from "./keys.ts"

describe("unknownKeys", () => {
  it("names each unknown key with its file and the known key it is closest to", () => {
    const found = unknownKeys([
      { file: "/u/toolbelt.json", value: { tool_serch: "on", permission: {}, colour: "red" } },
      { file: "/p/toolbelt.json", value: { "tool-search": "on", batch: true } },
    ])
    expect(found.map((each) => each.message)).toEqual([
      "/u/toolbelt.json: unknown key `tool_serch` (did you mean `tool_search`?) — ignored",
      "/u/toolbelt.json: unknown key `colour` — ignored",
      "/p/toolbelt.json: unknown key `tool-search` (did you mean `tool_search`?) — ignored",
    ])
    expect(found[0]).toMatchObject({ file: "/u/toolbelt.json", key: "tool_serch", suggestion: "tool_search" })
  })

  it("every key toolbelt reads is known, and so is $schema", () => {
    const value = Object.fromEntries(Object.keys(KNOWN_KEYS).map((key) => [key, {}]))
    expect(unknownKeys([{ file: "/f", value }])).toEqual([])
    expect(Object.keys(KNOWN_KEYS)).toEqual(
      expect.arrayContaining(["$schema", "batch", "experimental", "tool_search", "permission_sources"]),
    )
  })

  it("checks the keys inside experimental and tool_output too", () => {
    const found = unknownKeys([
      {
        file: "/f",
        value: {
          experimental: { batch_tool: true, batch_tools: true, openTelemetry: true },
          tool_output: { max_line: 10, max_bytes: 5 },
          mcp: { anything: { command: ["x"] } },
        },
      },
    ])
    expect(found.map((each) => each.message)).toEqual([
      "/f: unknown key `experimental.batch_tools` (did you mean `experimental.batch_tool`?) — ignored",
      "/f: unknown key `experimental.openTelemetry` — ignored",
      "/f: unknown key `tool_output.max_line` (did you mean `tool_output.max_lines`?) — ignored",
    ])
  })
})

describe("closest", () => {
  const known = ["tool_search", "tool_search_budget", "permission", "plugin", "lsp", "mcp"]
  it.each([
    ["tool_serch", "tool_search"],
    ["Tool_Search", "tool_search"],
    ["tool-search-budget", "tool_search_budget"],
    ["permision", "permission"],
    ["permissoin", "permission"],
    ["plugins", "plugin"],
    ["lps", "lsp"],
  ])("%s -> %s", (key, expected) => {
    expect(closest(key, known)).toBe(expected)
  })

  it.each(["theme", "model", "xyz", "permissions_everywhere"])("%s: nothing close", (key) => {
    expect(closest(key, known)).toBeUndefined()
  })
})

describe("withAliases", () => {
  it("experimental.batch_tool sets batch, unless the file sets batch itself", () => {
    expect(withAliases({ experimental: { batch_tool: true } })).toEqual({
      experimental: { batch_tool: true },
      batch: true,
    })
    expect(withAliases({ experimental: { batch_tool: true }, batch: false }).batch).toBe(false)
    expect(withAliases({ experimental: { batch_tool: false } }).batch).toBe(false)
    const plain = { batch: true }
    expect(withAliases(plain)).toBe(plain)
  })

  it("a batch_tool that is not true or false is an error naming the key", () => {
    expect(() => withAliases({ experimental: { batch_tool: "yes" } })).toThrow(ConfigError)
    expect(() => withAliases({ experimental: { batch_tool: "yes" } })).toThrow(
      /"experimental.batch_tool" is "yes"; it takes true or false/,
    )
  })
})
