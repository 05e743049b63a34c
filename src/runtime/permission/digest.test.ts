import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { callDigest, canonicalJSON } from "./digest.ts"

describe("canonicalJSON", () => {
  it.each([
    [{ b: 1, a: [3, { d: 1, c: 2 }] }, '{"a":[3,{"c":2,"d":1}],"b":1}'],
    [{ a: undefined, b: null }, '{"b":null}'],
    [[undefined, () => 1], "[null,null]"],
    ["x\n", '"x\\n"'],
    [Number.NaN, "null"],
    [10n, '"10"'],
    [new Date(0), '"1970-01-01T00:00:00.000Z"'],
    [{}, "{}"],
  ] as const)("case %# → %s", (value, expected) => {
    expect(canonicalJSON(value)).toBe(expected)
  })

  it("leaves out what JSON cannot hold", () => {
    expect(canonicalJSON(undefined)).toBeUndefined()
  })
})

describe("callDigest", () => {
  it("is sha256 of the tool name and the canonical input", () => {
    const expected = createHash("sha256").update('bash\0{"command":"ls","timeout":5}').digest("hex")
    expect(callDigest("bash", { timeout: 5, command: "ls" })).toBe(expected)
  })

  it("ignores key order, not values, tools or nesting", () => {
    const base = callDigest("edit", { filePath: "a", content: "x" })
    expect(callDigest("edit", { content: "x", filePath: "a" })).toBe(base)
    expect(callDigest("edit", { filePath: "a", content: "y" })).not.toBe(base)
    expect(callDigest("write", { filePath: "a", content: "x" })).not.toBe(base)
    expect(callDigest("a", "b")).not.toBe(callDigest("a\0", "b"))
  })
})
