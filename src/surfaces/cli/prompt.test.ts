import { describe, expect, it } from "vitest"
import { parsePermissionAnswer } from "./prompt.ts"

describe("parsePermissionAnswer", () => {
  it.each([
    ["o", "once"],
    [" Once ", "once"],
    ["y", "once"],
    ["yes", "once"],
    ["a", "always"],
    ["ALWAYS", "always"],
    ["r", "reject"],
    ["n", "reject"],
    ["no", "reject"],
    ["reject", "reject"],
  ])("%j is %j", (line, reply) => {
    expect(parsePermissionAnswer(line)).toBe(reply)
  })

  it("takes other text of more than one character as a reason to reject, as typed", () => {
    expect(parsePermissionAnswer("  Use the staging DB instead ")).toEqual({
      reject: "Use the staging DB instead",
    })
  })

  it.each(["", "   ", "x", "?", "1"])("does not take %j (the prompt asks again)", (line) => {
    expect(parsePermissionAnswer(line)).toBeUndefined()
  })
})
