import { describe, expect, it } from "vitest"
import { DEFAULT_LIMITS, resolveLimits } from "./limits.ts"

describe("resolveLimits", () => {
  it("uses opencode's defaults when nothing is configured", () => {
    expect(resolveLimits()).toEqual({ maxLines: 2000, maxBytes: 51200 })
    expect(resolveLimits({}, {})).toEqual(DEFAULT_LIMITS)
  })

  it("lets the config beat the defaults, key by key", () => {
    expect(resolveLimits({ max_lines: 50 })).toEqual({ maxLines: 50, maxBytes: 51200 })
    expect(resolveLimits({ max_bytes: 1024 })).toEqual({ maxLines: 2000, maxBytes: 1024 })
  })

  it("lets a per-call override beat the config", () => {
    expect(resolveLimits({ max_lines: 50, max_bytes: 1024 }, { maxLines: 7 })).toEqual({
      maxLines: 7,
      maxBytes: 1024,
    })
    expect(resolveLimits({ max_lines: 50 }, { maxBytes: 99 })).toEqual({ maxLines: 50, maxBytes: 99 })
  })

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    "rejects max_lines = %s and names the key",
    (bad) => {
      expect(() => resolveLimits({ max_lines: bad })).toThrow(
        /tool_output\.max_lines .* must be a positive integer/,
      )
    },
  )

  it("rejects bad max_bytes and override values, naming which one", () => {
    expect(() => resolveLimits({ max_bytes: 0 })).toThrow(/tool_output\.max_bytes in the config is 0/)
    expect(() => resolveLimits(undefined, { maxBytes: -5 })).toThrow(/maxBytes override is -5/)
    expect(() => resolveLimits(undefined, { maxLines: 2.5 })).toThrow(/maxLines override is 2\.5/)
  })

  it("rejects values of the wrong type that slip through untyped config files", () => {
    expect(() => resolveLimits({ max_lines: "100" as unknown as number })).toThrow(/is "100"/)
    expect(() => resolveLimits({ max_bytes: null as unknown as number })).toThrow(/is null/)
  })

  it("says how to fix the value", () => {
    expect(() => resolveLimits({ max_lines: 0 })).toThrow(/remove it to fall back to 2000/)
  })
})
