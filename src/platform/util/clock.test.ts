import { describe, expect, it } from "vitest"
import { monotonicMs } from "./clock.ts"

describe("monotonicMs", () => {
  it("moves forward with time, in milliseconds", async () => {
    const start = monotonicMs()
    await new Promise((done) => setTimeout(done, 25))
    const elapsed = monotonicMs() - start
    expect(elapsed).toBeGreaterThanOrEqual(20)
    expect(elapsed).toBeLessThan(60_000)
    expect(monotonicMs()).toBeGreaterThanOrEqual(start + elapsed)
  })
})
