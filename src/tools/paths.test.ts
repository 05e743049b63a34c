import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { relativePath, resolvePath } from "./paths.ts"

describe("resolvePath", () => {
  it.each([
    ["a/b.ts", "/p/a/b.ts"],
    ["./a/../b.ts", "/p/b.ts"],
    ["/elsewhere/c.ts", "/elsewhere/c.ts"],
    ["/elsewhere/./d/../c.ts", "/elsewhere/c.ts"],
    ["../up.ts", "/up.ts"],
  ])("%s → %s", (path, expected) => {
    expect(resolvePath("/p", path)).toBe(expected)
  })
})

describe("relativePath", () => {
  it.each([
    [join("/w", "src", "a.ts"), "src/a.ts"],
    ["/w", "."],
    [join("/outside", "x.ts"), "../outside/x.ts"],
  ])("%s → %s", (path, expected) => {
    expect(relativePath("/w", path)).toBe(expected)
  })
})
