import { describe, expect, it } from "vitest"
import { thousands } from "./thousands.ts"

describe("thousands", () => {
  it("writes what toLocaleString('en-US') writes", () => {
    for (const n of [
      0,
      7,
      999,
      1000,
      1234,
      99_999,
      100_000,
      1_234_567,
      -1,
      -1234,
      -1_000_000,
      2 ** 53 - 1,
      1.5,
    ])
      expect(thousands(n)).toBe(n.toLocaleString("en-US"))
  })
})
