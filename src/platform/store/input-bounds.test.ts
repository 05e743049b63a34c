import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { canonicalJson } from "../../runtime/settle/doom-loop.ts"
import {
  depthBeyond,
  MAX_INPUT_DEPTH,
  MAX_STORED_INPUT_BYTES,
  STORED_HEAD_CHARS,
  storedInput,
  storedString,
  TOO_DEEP_MARKER,
} from "./input-bounds.ts"

/** `levels` nested arrays or objects, parsed from JSON as `toolbelt call` receives them. */
function nested(levels: number, shape: "array" | "object"): unknown {
  const text =
    shape === "array"
      ? `${"[".repeat(levels)}${"]".repeat(levels)}`
      : `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`
  return JSON.parse(text)
}

describe("depthBeyond", () => {
  it("finds 200,000 levels of arrays and of objects without overflowing the stack", () => {
    expect(depthBeyond({ x: nested(200_000, "array") })).toBe(MAX_INPUT_DEPTH + 1)
    expect(depthBeyond(nested(200_000, "object"))).toBe(MAX_INPUT_DEPTH + 1)
  })

  it("accepts input up to the bound, and flat input of any width", () => {
    expect(depthBeyond(nested(MAX_INPUT_DEPTH, "array"))).toBeUndefined()
    expect(depthBeyond(nested(MAX_INPUT_DEPTH + 1, "array"))).toBe(MAX_INPUT_DEPTH + 1)
    expect(depthBeyond({ items: Array.from({ length: 100_000 }, (_, i) => ({ i })) })).toBeUndefined()
    expect(depthBeyond("text")).toBeUndefined()
  })

  it("walks a shared or circular object once", () => {
    const loop: Record<string, unknown> = {}
    loop.self = loop
    expect(depthBeyond(loop)).toBeUndefined()
  })
})

describe("storedInput", () => {
  it("keeps a small input as it is (the same object)", () => {
    const input = { filePath: "a.ts", content: "x".repeat(1000) }
    expect(storedInput(input)).toBe(input)
  })

  it("cuts a large string to its head and a note with its size and sha256, leaving the input whole", () => {
    const content = `é${"y".repeat(5_000_000)}`
    const input = { filePath: "big.txt", content }
    const stored = storedInput(input) as { filePath: string; content: string }
    expect(input.content).toBe(content)
    expect(stored.filePath).toBe("big.txt")
    expect(stored.content.startsWith(content.slice(0, STORED_HEAD_CHARS))).toBe(true)
    const sha = createHash("sha256").update(content).digest("hex")
    expect(stored.content).toContain(`sha256 ${sha}`)
    expect(stored.content).toContain(`${Buffer.byteLength(content)} bytes`)
    expect(JSON.stringify(stored).length).toBeLessThan(MAX_STORED_INPUT_BYTES)
  })

  it("never splits a surrogate pair at the cut or between hashed slices", () => {
    const content = "😀".repeat(1_500_000)
    const stored = storedString(content)
    expect(stored).not.toContain("\ufffd")
    expect(stored).toContain(`sha256 ${createHash("sha256").update(content).digest("hex")}`)
    expect(stored.startsWith("😀".repeat(STORED_HEAD_CHARS / 2))).toBe(true)
  })

  it("replaces the whole input with one note when many small values make it large", () => {
    const input = {
      edits: Array.from({ length: 20_000 }, (_, i) => ({ oldString: `a${i}`, newString: `b${i}` })),
    }
    const stored = storedInput(input)
    expect(Object.keys(stored)).toEqual(["[toolbelt]"])
    const note = stored["[toolbelt]"] as string
    expect(note).toContain(createHash("sha256").update(JSON.stringify(input)).digest("hex"))
    expect(note.length).toBeLessThan(4096)
  })

  it("stores a value nested too deep as a marker, and the rest as it was", () => {
    const stored = storedInput({ filePath: "a", x: nested(200_000, "array") })
    expect(stored.filePath).toBe("a")
    const text = JSON.stringify(stored)
    expect(text).toContain(TOO_DEEP_MARKER)
    expect(depthBeyond(stored)).toBeUndefined()
  })
})

describe("canonicalJson", () => {
  it("writes input nested past the bound with a marker instead of overflowing the stack", () => {
    expect(canonicalJson(nested(200_000, "object"))).toContain(TOO_DEEP_MARKER)
  })
})
