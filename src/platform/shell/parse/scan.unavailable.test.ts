import { tmpdir } from "node:os"
import { describe, expect, it, vi } from "vitest"

vi.mock("./parser.ts", () => ({
  loadBashParser: () => Promise.reject(new Error("wasm missing")),
}))

const { scanCommand } = await import("./scan.ts")

describe("scanCommand without a parser", () => {
  it("never allows silently: parsed is false and the whole command is the pattern", async () => {
    const result = await scanCommand("  rm -rf build  ", { cwd: process.cwd(), directory: process.cwd() })
    expect(result).toEqual({
      parsed: false,
      commands: [],
      patterns: ["rm -rf build"],
      always: ["rm -rf build"],
      externalDirectories: [],
      reasons: ["the shell parser could not be loaded: wasm missing"],
      unchecked: [{ pattern: "rm -rf build", reason: "the shell parser could not be loaded: wasm missing" }],
    })
  })

  it("still reports a working directory outside the project", async () => {
    const result = await scanCommand("ls", { cwd: tmpdir(), directory: process.cwd() })
    expect(result.externalDirectories).toHaveLength(1)
  })
})
