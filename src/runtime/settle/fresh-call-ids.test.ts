import { describe, expect, it } from "vitest"
import { MAX_MINTED, mintCallID, takeMinted } from "./fresh-call-ids.ts"

describe("fresh call ids", () => {
  it("knows an id it minted once, and no other", () => {
    const id = mintCallID()
    expect(id).toMatch(/^call_/)
    expect(takeMinted("call_someone_elses")).toBe(false)
    expect(takeMinted(id)).toBe(true)
    // Settled once: a second call with the same id is checked against the record again.
    expect(takeMinted(id)).toBe(false)
  })

  it("lets go of the oldest ids past its bound, never of a recent one", () => {
    const first = mintCallID()
    const recent = Array.from({ length: MAX_MINTED }, () => mintCallID())
    expect(takeMinted(first)).toBe(false)
    expect(recent.every((id) => takeMinted(id))).toBe(true)
  })
})
