import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { expect, it } from "vitest"

const ROOT = resolve(import.meta.dirname, "..")
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string
  bin: Record<string, string>
}

it("every package entry point loads and exports its main API", async () => {
  const main = await import("agent-toolbelt")
  expect(typeof main.createToolbelt).toBe("function")
  expect(typeof main.Tool.make).toBe("function")
  const plugin = await import("agent-toolbelt/plugin")
  expect(typeof plugin.tool).toBe("function")
  const ai = await import("agent-toolbelt/ai")
  expect(typeof ai.toAISDKTools).toBe("function")
  const mcp = await import("agent-toolbelt/mcp")
  expect(typeof mcp.createMcpServer).toBe("function")
  expect(typeof mcp.serveMcpStdio).toBe("function")
})

// npm's "toolbelt" is an unrelated package: the name users install and import is ours, the command
// keeps the short name.
it("is published as agent-toolbelt with a toolbelt command, and Node resolves it by that name", () => {
  expect(pkg.name).toBe("agent-toolbelt")
  expect(pkg.bin).toEqual({ toolbelt: "bin/toolbelt.js" })
  // Outside vitest's aliases: Node's own resolution of the package's name (its exports map).
  const result = spawnSync(
    process.execPath,
    [
      "--conditions=source",
      "--input-type=module",
      "-e",
      'const m = await import("agent-toolbelt"); const p = await import("agent-toolbelt/plugin"); console.log(typeof m.createToolbelt, typeof p.tool)',
    ],
    { cwd: ROOT, encoding: "utf8" },
  )
  expect(result.stderr).toBe("")
  expect(result.stdout.trim()).toBe("function function")
})
