import { describe, expect, it } from "vitest"
import { toolName } from "./arity.ts"
import { FILE_COMMANDS } from "./operand-table.ts"
import { isFileCommand } from "./operands.ts"

describe("file-like command table", () => {
  it.each(Object.keys(FILE_COMMANDS))("%s is looked up by the name the scan gives it", (name) => {
    expect(toolName(name)).toBe(name)
    expect(isFileCommand(`/usr/bin/${name}`)).toBe(true)
  })

  it.each(Object.entries(FILE_COMMANDS))(
    "%s lists each flag as taking a path or not, never both",
    (_, spec) => {
      const paths = Object.keys(spec.paths ?? {})
      expect((spec.value ?? []).filter((flag) => paths.includes(flag))).toEqual([])
    },
  )
})
