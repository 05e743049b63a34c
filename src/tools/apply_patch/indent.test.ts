import { describe, expect, it } from "vitest"
import { indentMapping } from "./indent.ts"

describe("indentMapping", () => {
  it.each([
    ["the file has an extra tab", ["a", "  b"], ["\ta", "\t  b"], "  c", "\t  c"],
    ["the file has four more spaces", ["if x:", "    y"], ["    if x:", "        y"], "    z", "        z"],
    ["the patch has two extra spaces", ["  a", "    b"], ["a", "  b"], "    c", "  c"],
    [
      "the patch uses 4 spaces, the file tabs",
      ["    a", "        b"],
      ["\ta", "\t\tb"],
      "        c",
      "\t\tc",
    ],
    ["the patch uses tabs, the file 2 spaces", ["\ta", "\t\tb"], ["  a", "    b"], "\t\t\tc", "      c"],
    ["spaces to tabs with a shift", ["a", "    b"], ["\ta", "\t\tb"], "    c", "\t\tc"],
  ])("maps when %s", (_, patch, file, added, expected) => {
    const map = indentMapping(patch, file)
    expect(map?.(added)).toBe(expected)
    expect(map?.("")).toBe("")
  })

  it.each([
    ["the indentation already agrees", ["  a", "", "  b"], ["  a", "", "  b"]],
    ["the difference is inconsistent", ["a", "b"], ["  a", "    b"]],
    ["there are only blank lines", ["", " "], ["", ""]],
    ["the file mixes tabs and spaces", ["    a", "        b"], ["\ta", "\t    b"]],
  ])("gives nothing when %s", (_, patch, file) => {
    expect(indentMapping(patch, file)).toBeUndefined()
  })
})
