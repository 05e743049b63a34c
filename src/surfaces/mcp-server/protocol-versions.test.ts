import { describe, expect, it } from "vitest"
import { allowsBatches, knowsTitledEnums, PROTOCOL_VERSIONS } from "./protocol-versions.ts"

describe("protocol versions", () => {
  it("negotiates the published revisions only, newest first (2024-10-07 was a draft)", () => {
    expect(PROTOCOL_VERSIONS).toEqual(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
  })

  it.each([
    ["2024-11-05", false, false],
    ["2025-03-26", true, false],
    ["2025-06-18", false, false],
    ["2025-11-25", false, true],
    [undefined, false, true],
  ])("%s: batches %s, titled enums %s", (version, batches, titled) => {
    expect(allowsBatches(version)).toBe(batches)
    expect(knowsTitledEnums(version)).toBe(titled)
  })
})
