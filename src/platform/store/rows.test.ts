import { describe, expect, it } from "vitest"
import { fromRow } from "./rows.ts"

describe("fromRow", () => {
  it.each([
    ["id", "id"],
    ["session_id", "sessionID"],
    ["project_id", "projectID"],
    ["time_created", "timeCreated"],
    ["parent_call_id", "parentCallID"],
    ["path", "path"],
  ])("names column %s %s", (column, field) => {
    expect(Object.keys(fromRow({ [column]: 1 }))).toEqual([field])
  })

  it("keeps the values and the column order", () => {
    const row = { session_id: "ses_1", path: "a.ts", mtime: 1.5, size: 0, time: 7 }
    const fields = fromRow(row)
    expect(Object.entries(fields)).toEqual([
      ["sessionID", "ses_1"],
      ["path", "a.ts"],
      ["mtime", 1.5],
      ["size", 0],
      ["time", 7],
    ])
  })
})
