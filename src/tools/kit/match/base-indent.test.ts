import { describe, expect, it } from "vitest"
import { landAligned, landAtBase } from "./base-indent.ts"
import { replace } from "./replace.ts"

const block = ["        if x:", "            return 1"]

describe("landAtBase", () => {
  it.each([
    [
      "newString at the margin, block at 8",
      block,
      "",
      "if y:\n    return 3",
      "        if y:\n            return 3",
    ],
    ["one line at the margin", ["        return 2"], "", "return 4", "        return 4"],
    [
      "first line copied bare, the rest at the margin",
      block,
      "        ",
      "if y:\n    return 3",
      "if y:\n            return 3",
    ],
    [
      "first line copied bare, the rest as in the file",
      block,
      "        ",
      "if y:\n            return 3",
      "if y:\n            return 3",
    ],
    [
      "newString's first line bare, the rest exact",
      block,
      "",
      "if x:\n            return 3",
      "        if x:\n            return 3",
    ],
    [
      "tabs: lines at the margin move by the block's tab",
      ["\tfoo()", "\tbar()"],
      "",
      "foo()\nbaz()\nbar()",
      "\tfoo()\n\tbaz()\n\tbar()",
    ],
    [
      "a deliberate dedent that is not to the margin stays",
      block,
      "",
      "    if y:\n        return 3",
      "    if y:\n        return 3",
    ],
    [
      "an else added below, kept lines in place, stays",
      ["            return 1"],
      "",
      "            return 1\n        else:\n            return 0",
      "            return 1\n        else:\n            return 0",
    ],
    [
      "a block at the margin in the file stays",
      ["if x:", "    return 1"],
      "",
      "if y:\n    return 3",
      "if y:\n    return 3",
    ],
  ])("%s", (_name, fileLines, prefix, text, landed) => {
    expect(landAtBase({ fileLines, firstLine: 3, prefix, text })).toMatchObject({ ok: true, text: landed })
  })

  it("refuses a newString that fits neither as written nor moved, showing the region", () => {
    const result = landAtBase({
      fileLines: ["  id: string", "  name: string"],
      firstLine: 12,
      prefix: "",
      text: "  id: string\nname: string\n  slug: string",
    })
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toContain("(lines 12-13) is indented by 2 spaces")
    expect(!result.ok && result.message).toContain("12:   id: string\n13:   name: string")
  })

  it("says what it did", () => {
    const result = landAtBase({ fileLines: block, firstLine: 1, prefix: "", text: "if y:\n    return 3" })
    expect(result.ok && result.note).toBe(
      "newString was written without the block's indentation, so it was re-indented to the text it replaces (+8 spaces)",
    )
  })
})

describe("landAligned: the landing checked after the line-aligned path", () => {
  it.each([
    [
      "oldString at the margin, newString's first line bare: the rest was moved twice",
      "if x:\n            return 3",
      "        if x:\n                    return 3",
      "        if x:\n            return 3",
    ],
    [
      "oldString's rest a level too deep, newString at the margin: the rest was moved to the margin",
      "if x:\n    return 3",
      "        if x:\nreturn 3",
      "        if x:\n            return 3",
    ],
    [
      "what the path produced already sits in place: kept",
      "if x:\n    return 3",
      "        if x:\n            return 3",
      "        if x:\n            return 3",
    ],
    [
      "a deliberate wrap (kept lines moved a level deeper) fits no reading: kept",
      "if y:\n    if x:\n        return 1",
      "        if y:\n            if x:\n                return 1",
      "        if y:\n            if x:\n                return 1",
    ],
  ])("%s", (_name, text, produced, landed) => {
    expect(landAligned({ fileLines: block, firstLine: 3, prefix: "", text, produced })).toMatchObject({
      ok: true,
      text: landed,
    })
  })
})

describe("replace: a slipped oldString matched line by line lands newString at the block", () => {
  const file =
    "class A:\n    def f(self, x):\n        if x:\n            say(\u201chi\u201d)\n            return 1\n        return 2\n"
  const landed =
    "class A:\n    def f(self, x):\n        if x:\n            say(\u201chi\u201d)\n            return 3\n        return 2\n"
  it.each([
    [
      "oldString dedented to the margin, newString's first line bare and the rest at the file's depth",
      "if x:\n    say(\u201chi\u201d)\n    return 1",
      "if x:\n            say(\u201chi\u201d)\n            return 3",
    ],
    [
      "oldString's first line bare and the rest a level too deep, newString at the margin",
      "if x:\n                say(\u201chi\u201d)\n                return 1",
      "if x:\n    say(\u201chi\u201d)\n    return 3",
    ],
    [
      "the same through the merge (straight quotes for the file's curly ones), dedented",
      'if x:\n    say("hi")\n    return 1',
      'if x:\n            say("hi")\n            return 3',
    ],
    [
      "the same through the merge, a level too deep",
      'if x:\n                say("hi")\n                return 1',
      'if x:\n    say("hi")\n    return 3',
    ],
  ])("%s", (_name, oldString, newString) => {
    expect(replace({ content: file, oldString, newString })).toMatchObject({ ok: true, content: landed })
  })

  it("keeps the merge's typography note", () => {
    const result = replace({
      content: file,
      oldString: 'if x:\n    say("hi")\n    return 1',
      newString: 'if x:\n            say("hi")\n            return 3',
    })
    expect(result.ok && result.normalisation).toContain(
      "newString's first line was copied without its indentation",
    )
    expect(result.ok && result.normalisation).not.toContain("re-indented to the file's indentation")
  })
})
