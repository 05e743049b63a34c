import { expect, it } from "vitest"

it("every package entry point loads and exports its main API", async () => {
  const main = await import("toolbelt")
  expect(typeof main.createToolbelt).toBe("function")
  expect(typeof main.Tool.make).toBe("function")
  const plugin = await import("toolbelt/plugin")
  expect(typeof plugin.tool).toBe("function")
  const ai = await import("toolbelt/ai")
  expect(typeof ai.toAISDKTools).toBe("function")
  const mcp = await import("toolbelt/mcp")
  expect(typeof mcp.createMcpServer).toBe("function")
  expect(typeof mcp.serveMcpStdio).toBe("function")
})
