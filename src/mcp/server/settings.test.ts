import { describe, expect, it } from "vitest"
import { mcpSettings } from "./settings.ts"

describe("mcpSettings", () => {
  it.each([
    ["no mcp key", {}, "reject"],
    ["no ask", { mcp: {} }, "reject"],
    ["reject", { mcp: { ask: "reject" } }, "reject"],
    ["allow", { mcp: { ask: "allow" } }, "allow"],
  ])("%s → %s", (_name, config, ask) => {
    expect(mcpSettings(config)).toEqual({ ask })
  })

  it("says what is allowed when the value is wrong", () => {
    expect(() => mcpSettings({ mcp: { ask: "ask" } })).toThrow(
      'Invalid config: "mcp.ask" must be "reject" (the default) or "allow", not "ask".',
    )
    expect(() => mcpSettings({ mcp: "allow" })).toThrow('"mcp" must be an object')
  })
})
