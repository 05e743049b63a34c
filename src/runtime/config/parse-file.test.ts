import { describe, expect, it } from "vitest"
import { ConfigError } from "./config-error.ts"
import { parseConfigText } from "./parse-file.ts"

describe("parseConfigText", () => {
  it("reads TOML for .toml: the spec's config.toml, verbatim", () => {
    const text = '[permission]\nmy_custom_tool = "ask"  # Always ask before running\n'
    expect(parseConfigText(text, "/p/.opencode/config.toml")).toEqual({
      permission: { my_custom_tool: "ask" },
    })
  })

  it("keeps the order keys are written in, in TOML tables as in JSON", () => {
    const text = '[permission.bash]\n"*" = "allow"\n"rm *" = "deny"\n"git push *" = "ask"\n'
    const value = parseConfigText(text, "/p/config.toml") as { permission: { bash: object } }
    expect(Object.keys(value.permission.bash)).toEqual(["*", "rm *", "git push *"])
  })

  it("a TOML syntax error names file:line:column and what to do", () => {
    const text = '[permission]\nbash = "allow"\nedit = ask\n'
    expect(() => parseConfigText(text, "/p/.opencode/config.toml")).toThrow(ConfigError)
    expect(() => parseConfigText(text, "/p/.opencode/config.toml")).toThrow(
      /^Invalid config file \/p\/\.opencode\/config\.toml:3:8: .+\. Fix the TOML there \(strings in double quotes/,
    )
  })

  it("a duplicate TOML key is an error at its place, not a silent override", () => {
    const text = '[permission]\nbash = "deny"\nbash = "allow"\n'
    expect(() => parseConfigText(text, "/c.toml")).toThrow(/^Invalid config file \/c\.toml:3:\d+: /)
  })

  it("refuses a __proto__ key in TOML rather than keep or drop it", () => {
    expect(() => parseConfigText('[permission]\n__proto__ = "allow"\n', "/c.toml")).toThrow(
      /^Invalid config file \/c\.toml:2:\d+: /,
    )
  })

  it("reads JSON with comments and trailing commas; an error names file:line:column", () => {
    expect(parseConfigText('{\n  // a comment\n  "batch": true,\n}', "/p/toolbelt.jsonc")).toEqual({
      batch: true,
    })
    expect(() => parseConfigText('{\n  "batch": tru\n}', "/p/toolbelt.json")).toThrow(
      /^Invalid config file \/p\/toolbelt\.json:2:12: InvalidSymbol\. Fix the JSON there/,
    )
  })

  it("the top level must be an object", () => {
    expect(() => parseConfigText("[1, 2]", "/p/toolbelt.json")).toThrow(
      "Invalid config file /p/toolbelt.json: the top level must be an object.",
    )
  })
})
