import { describe, expect, it } from "vitest"
import { toolName } from "./arity.ts"
import { ARITY, ASSIGNMENT_OPTIONS, FLAGS, PLUS_OPTIONS, WORD_FLAGS } from "./arity-table.ts"

describe("arity tables", () => {
  it("has an entry for every prefix of a multi-word entry's first word", () => {
    for (const key of Object.keys(ARITY)) {
      const words = key.split(" ")
      expect(ARITY[key]!).toBeGreaterThanOrEqual(words.length)
      if (words.length > 1 && !words[1]!.startsWith("-")) expect(ARITY[words[0]!]).toBeDefined()
    }
  })

  const names = new Set([
    ...Object.keys(ARITY).map((key) => key.split(" ")[0]!),
    ...Object.keys(FLAGS),
    ...Object.keys(WORD_FLAGS),
    ...PLUS_OPTIONS,
    ...ASSIGNMENT_OPTIONS,
  ])
  it.each([...names])("%s is looked up by the name the scan gives it", (name) => {
    expect(toolName(name)).toBe(name)
    expect(toolName(`/usr/bin/${name}`)).toBe(name)
  })

  it.each(Object.keys(WORD_FLAGS))(
    "%s lists a flag as taking a value or as the subcommand, never both",
    (tool) => {
      expect(WORD_FLAGS[tool]!.filter((flag) => FLAGS[tool]?.includes(flag))).toEqual([])
    },
  )
})
