// The command line runs a bundle with its own copy of the tool API, while a plugin imports the
// package's modules: a tool or a ToolFailure made with one copy must be recognised by every other.
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { ToolFailure } from "./failure.ts"
import * as Tool from "./index.ts"

// A query string makes the module loader evaluate the file again: a second copy of the module.
const copyOf = <T>(file: string): Promise<T> => import(`${new URL(file, import.meta.url).href}?copy`)

describe("copies of the tool API", () => {
  it("knows a tool made by another copy", async () => {
    const other = await copyOf<typeof import("./internal.ts")>("./internal.ts")
    const tool = Tool.make({ description: "x", input: z.object({}), execute: () => "ok" })
    expect(other.isTool(tool)).toBe(true)
    expect(other.internals(tool).description).toBe("x")
  })

  it("takes a ToolFailure thrown by another copy for a ToolFailure, and nothing else", async () => {
    const other = await copyOf<typeof import("./failure.ts")>("./failure.ts")
    expect(other.ToolFailure).not.toBe(ToolFailure)
    expect(new other.ToolFailure("no") instanceof ToolFailure).toBe(true)
    expect(Tool.isToolFailure(new other.ToolFailure("no"))).toBe(true)
    expect(new Error("no") instanceof ToolFailure).toBe(false)
    expect(Object.assign(new Error("no"), { name: "ToolFailure" }) instanceof ToolFailure).toBe(false)
  })
})
