import { describe, expect, it } from "vitest"
import { MIGRATIONS, openStore } from "../../platform/store/index.ts"
import { McpPins } from "../../platform/store/mcp-pins.ts"

describe("McpPins (the store's mcp_pin table)", () => {
  it("pins per project, server and tool; a new pin replaces the old; pins can be removed", () => {
    using store = openStore({ path: ":memory:" })
    expect(MIGRATIONS.map((migration) => migration.name)).toContain("mcp tool pins")
    const pins = new McpPins(store.db)
    expect(pins.get({ projectID: "/p", server: "gh", tool: "search" })).toBeUndefined()

    const first = pins.pin({
      projectID: "/p",
      server: "gh",
      tool: "search",
      fingerprint: "a",
      definition: { d: 1 },
    })
    expect(pins.get({ projectID: "/p", server: "gh", tool: "search" })).toEqual(first)
    pins.pin({ projectID: "/p", server: "gh", tool: "issue", fingerprint: "b", definition: null })
    pins.pin({ projectID: "/other", server: "gh", tool: "search", fingerprint: "c", definition: {} })

    const replaced = pins.pin({
      projectID: "/p",
      server: "gh",
      tool: "search",
      fingerprint: "z",
      definition: { d: 2 },
      time: 5,
    })
    expect(pins.get({ projectID: "/p", server: "gh", tool: "search" })).toEqual(replaced)
    expect(pins.list("/p").map((pin) => [pin.tool, pin.fingerprint])).toEqual([
      ["issue", "b"],
      ["search", "z"],
    ])
    expect(pins.list("/p", "other")).toEqual([])

    expect(pins.remove({ projectID: "/p", server: "gh", tool: "search" })).toBe(1)
    expect(pins.remove({ projectID: "/p", server: "gh" })).toBe(1)
    expect(pins.list("/p")).toEqual([])
    expect(pins.list("/other")).toHaveLength(1)
  })
})
