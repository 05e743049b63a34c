import { describe, expect, it } from "vitest"
import { newOutputId, timestampOf } from "./output-id.ts"

const DAY = 24 * 60 * 60 * 1000

describe("newOutputId", () => {
  it("is 12 lowercase hex digits then 14 base62 characters", () => {
    for (let i = 0; i < 100; i++) expect(newOutputId()).toMatch(/^[0-9a-f]{12}[0-9A-Za-z]{14}$/)
  })

  it("is unique", () => {
    const ids = new Set(Array.from({ length: 5000 }, () => newOutputId()))
    expect(ids.size).toBe(5000)
  })

  it("sorts by creation time, within a millisecond too", () => {
    const base = Date.UTC(2026, 10, 22)
    const times = [
      base - 3 * DAY,
      base - DAY,
      base - 1,
      base,
      base,
      base,
      base + 1,
      base + 1,
      base + 60_000,
      base + DAY,
    ]
    const ids = times.map((time) => newOutputId(time))
    expect([...ids].sort()).toEqual(ids)
  })

  it("keeps 4096 ids made in the same millisecond in order", () => {
    const now = Date.UTC(2026, 10, 22, 12)
    const ids = Array.from({ length: 4096 }, () => newOutputId(now))
    expect([...ids].sort()).toEqual(ids)
  })
})

describe("timestampOf", () => {
  const now = Date.UTC(2026, 10, 22, 2, 44, 44, 123)

  it.each([0, 1, DAY, 3 * DAY, 10 * DAY, 700 * DAY])("reads back a time %d ms ago", (ago) => {
    expect(timestampOf(newOutputId(now - ago), now)).toBe(now - ago)
    expect(timestampOf(`tool_${newOutputId(now - ago)}`, now)).toBe(now - ago)
  })

  it("reads back a time slightly ahead of the reader's clock", () => {
    expect(timestampOf(newOutputId(now + 5000), now)).toBe(now + 5000)
  })

  it("reads times across the point where the 36-bit millisecond field wraps", () => {
    const wrap = 27 * 2 ** 36
    const before = wrap - 5 * DAY
    expect(timestampOf(newOutputId(before), wrap + 1000)).toBe(before)
  })

  it("returns undefined for names that are not output ids", () => {
    expect(timestampOf("notes.txt")).toBeUndefined()
    expect(timestampOf("tool_")).toBeUndefined()
    expect(timestampOf("tool_XYZ")).toBeUndefined()
    expect(timestampOf("tool_0123456789abSHORT")).toBeUndefined()
  })

  it("reads the time of a temp file name", () => {
    expect(timestampOf(`tool_${newOutputId(now - DAY)}.tmp`, now)).toBe(now - DAY)
  })
})
