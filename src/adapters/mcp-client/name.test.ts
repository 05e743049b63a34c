import { describe, expect, it } from "vitest"
import { MAX_NAME, sanitize, toolName, toolNames } from "./name.ts"

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

describe("toolName", () => {
  it.each([
    ["github", "create_issue", "github_create_issue"],
    ["my server", "tool.name/with spaces", "my_server_tool_name_with_spaces"],
    ["a-b", "c-d", "a-b_c-d"],
    ["1st", "go", "mcp_1st_go"],
    ["_x", "y", "mcp__x_y"],
    ["ünï", "çødé", "mcp__n____d_"],
  ])("%s + %s → %s", (server, tool, expected) => {
    expect(toolName(server, tool)).toBe(expected)
    expect(toolName(server, tool)).toMatch(NAME)
  })

  it("shortens long names deterministically to 64 characters with a hash suffix", () => {
    const tool = "a_really_long_tool_name_that_goes_on_and_on_well_beyond_the_sixty_four_limit"
    const name = toolName("server", tool)
    expect(name).toHaveLength(MAX_NAME)
    expect(name).toMatch(NAME)
    expect(name).toMatch(/^server_a_really_long.*_[0-9a-f]{8}$/)
    expect(toolName("server", tool)).toBe(name)
    // Same beginning, different end: different names.
    expect(toolName("server", `${tool}_2`)).not.toBe(name)
  })

  it("keeps names of exactly 64 characters as they are", () => {
    const tool = "t".repeat(64 - "s_".length)
    expect(toolName("s", tool)).toBe(`s_${tool}`)
  })

  it("sanitize replaces every character outside [A-Za-z0-9_-]", () => {
    expect(sanitize("a.b:c/d e@f")).toBe("a_b_c_d_e_f")
  })
})

describe("toolNames", () => {
  it("gives tools that sanitise alike distinct names", () => {
    const names = toolNames("s", ["a.b", "a_b", "c"])
    expect(names.get("a.b")).toBe("s_a_b")
    expect(names.get("a_b")).toMatch(/^s_a_b_[0-9a-f]{8}$/)
    expect(names.get("c")).toBe("s_c")
    expect(new Set(names.values()).size).toBe(3)
  })
})
