import { describe, expect, it } from "vitest"
import { TextCache } from "./text-cache.ts"

describe("TextCache", () => {
  it("drops the oldest past its bound, keeping what was found again the longest", () => {
    const cache = new TextCache<number>({ maxChars: 9 })
    cache.set("aaa", 1)
    cache.set("bbb", 2)
    cache.set("ccc", 3)
    expect(cache.get("aaa")).toBe(1) // now the newest
    cache.set("ddd", 4) // 12 characters: the oldest, bbb, goes
    expect([...cache.entries()]).toEqual([
      ["ccc", 3],
      ["aaa", 1],
      ["ddd", 4],
    ])
    expect(cache.chars).toBe(9)
    expect(cache.get("bbb")).toBeUndefined()
  })

  it("counts entries as sizeOf says, replaces a key's value, and keeps nothing too large", () => {
    const cache = new TextCache<string>({
      maxChars: 20,
      maxEntryChars: 8,
      sizeOf: (key, value) => key.length + value.length,
    })
    expect(cache.set("key", "value")).toBe(true)
    expect(cache.chars).toBe(8)
    expect(cache.set("key", "v2")).toBe(true)
    expect(cache.chars).toBe(5)
    expect(cache.size).toBe(1)
    expect(cache.set("long key", "long value")).toBe(false)
    expect(cache.get("long key")).toBeUndefined()
    expect(cache.get("key")).toBe("v2")
  })

  it("finds a text by its content, not by which string object holds it", () => {
    const cache = new TextCache<number>({ maxChars: 1 << 20 })
    const text = "line\n".repeat(10_000)
    cache.set(text, 7)
    expect(cache.get(`${"line\n".repeat(9_999)}line\n`)).toBe(7)
    expect(cache.get(`${"line\n".repeat(9_999)}lime\n`)).toBeUndefined()
  })
})
