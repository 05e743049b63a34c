import { describe, expect, it } from "vitest"
import { type Candidate, decideDeferral, isDeferrable, MAX_LISTED_TOOLS, needsCounts } from "./deferral.ts"

const builtin = (name: string, tokens = 100): Candidate => ({ name, source: "builtin", tokens })
const mcp = (name: string, tokens = 100): Candidate => ({ name, source: "mcp:demo", tokens })
const settings = (mode: "auto" | "on" | "off", budget = 1000) => ({ mode, budget })

describe("decideDeferral", () => {
  it("defers only MCP, plugin and tool-file tools", () => {
    expect(["mcp:a", "plugin:b", "custom:c.ts"].every(isDeferrable)).toBe(true)
    expect(["builtin", "app", "mcpx"].some(isDeferrable)).toBe(false)
    const tools = [
      builtin("read"),
      mcp("a"),
      { name: "p", source: "plugin:x" },
      { name: "c", source: "custom:f.ts" },
    ]
    expect([...decideDeferral(tools, settings("on")).deferred]).toEqual(["a", "p", "c"])
  })

  it("auto defers all deferrable tools once the total passes the budget, and none at or under it", () => {
    const under = decideDeferral([builtin("read", 600), mcp("a", 400)], settings("auto"))
    expect(under.deferred.size).toBe(0)
    expect(under.totalTokens).toBe(1000)
    expect(under.reason).toMatch(/within the budget of 1,000/)
    const over = decideDeferral([builtin("read", 600), mcp("a", 401), mcp("b", 1)], settings("auto"))
    expect([...over.deferred]).toEqual(["a", "b"])
    expect(over.reason).toBe(
      "the definitions that would be offered take 1,002 tokens, over the budget of 1,000",
    )
  })

  it("auto defers past 128 tools whatever their size", () => {
    const tools = [builtin("read", 1), ...Array.from({ length: MAX_LISTED_TOOLS }, (_, i) => mcp(`t${i}`, 1))]
    const deferral = decideDeferral(tools, settings("auto", 1_000_000))
    expect(deferral.deferred.size).toBe(MAX_LISTED_TOOLS)
    expect(deferral.reason).toMatch(/129 tools would be offered/)
    expect(decideDeferral(tools.slice(1), settings("auto", 1_000_000)).deferred.size).toBe(0)
  })

  it("off never defers; nothing deferrable defers nothing in any mode", () => {
    expect(decideDeferral([mcp("a", 99_999)], settings("off")).deferred.size).toBe(0)
    for (const mode of ["auto", "on", "off"] as const)
      expect(decideDeferral([builtin("read", 99_999)], settings(mode)).deferred.size).toBe(0)
  })

  it("asks for counts only in auto, with something deferrable and at most 128 tools", () => {
    expect(needsCounts([{ source: "builtin" }], "auto")).toBe(false)
    expect(needsCounts([{ source: "mcp:a" }], "auto")).toBe(true)
    expect(needsCounts([{ source: "mcp:a" }], "on")).toBe(false)
    expect(needsCounts([{ source: "mcp:a" }], "off")).toBe(false)
    expect(
      needsCounts(
        Array.from({ length: 129 }, () => ({ source: "mcp:a" })),
        "auto",
      ),
    ).toBe(false)
  })
})
