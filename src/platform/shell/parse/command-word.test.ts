import { describe, expect, it } from "vitest"
import { commandWord, commandWordVariants, withPlaceholder } from "./command-word.ts"
import type { State, Token } from "./frame.ts"

/** A token whose value is known (`dynamicAt` at the end) unless `dynamicAt` says otherwise. */
function token(source: string, text = source, dynamicAt = text.length): Token {
  const glob = /[*?[{]/.exec(text)
  return { source, values: [{ text, dynamicAt, globAt: glob ? glob.index : text.length }] }
}

function state(vars: Record<string, readonly string[] | undefined> = {}): State {
  return {
    cwd: "/",
    oldpwd: undefined,
    stack: [],
    vars: new Map(Object.entries(vars)),
    aliases: new Map(),
    functions: new Map(),
  }
}

describe("commandWord", () => {
  it.each([
    ["rm", "rm", "rm"],
    ["'rm'", "rm", "rm"],
    ["/bin/rm", "/bin/rm", "rm"],
    ["./rm", "./rm", "rm"],
    ["[", "[", "["],
  ])("%s names %s", (source, value, base) => {
    expect(commandWord(token(source, value))).toEqual({ kind: "literal", name: value, base })
  })

  it.each([
    ["$CMD", "$CMD", 0],
    ["$(echo rm)", "$(echo rm)", 0],
    ["r$x", "r$x", 1],
  ])("%s is computed at run time", (source, text, dynamicAt) => {
    expect(commandWord(token(source, text, dynamicAt))).toMatchObject({ kind: "computed", source })
  })

  it("names the program as a case-insensitive file system finds it", () => {
    expect(commandWord(token("RM"), "darwin")).toMatchObject({ base: "rm" })
    expect(commandWord(token("/BIN/RM"), "win32")).toMatchObject({ base: "rm" })
    expect(commandWord(token("rm.exe"), "win32")).toMatchObject({ base: "rm" })
    expect(commandWord(token("RM"), "linux")).toMatchObject({ base: "RM" })
  })

  it("counts a glob or brace pattern as computed", () => {
    expect(commandWord(token("/bin/r?"))).toMatchObject({
      kind: "computed",
      why: expect.stringContaining("glob"),
    })
    expect(commandWord(token("/bin/r[m]"))).toMatchObject({ kind: "computed" })
  })
})

describe("commandWordVariants", () => {
  it("is undefined for one plain word", () => {
    expect(commandWordVariants(token("rm"), state())).toBeUndefined()
    expect(commandWordVariants(token("$c", "ls"), state())).toBeUndefined()
  })

  it("splits an expanded value by IFS", () => {
    const split = commandWordVariants(token("$c", "rm -f x"), state())
    expect(split?.map((variant) => variant.map((word) => word.source))).toEqual([["rm", "-f", "x"]])
    const comma = commandWordVariants(token("$c", "rm,x"), state({ IFS: [","] }))
    expect(comma?.map((variant) => variant.map((word) => word.source))).toEqual([["rm", "x"]])
  })

  it("does not split a literal word, and cannot split by an unknown IFS", () => {
    expect(commandWordVariants(token('"my tool"', "my tool"), state())).toBeUndefined()
    const unknown = commandWordVariants(token("$c", "rm,x"), state({ IFS: undefined }))
    expect(commandWord(unknown![0]![0]!)).toMatchObject({ kind: "computed" })
  })

  it("gives each value a variable may hold", () => {
    const both: Token = {
      source: "$c",
      values: [
        { text: "ls", dynamicAt: 2, globAt: 2 },
        { text: "rm", dynamicAt: 2, globAt: 2 },
      ],
    }
    const variants = commandWordVariants(both, state())
    expect(variants?.map((variant) => variant.map((word) => commandWord(word)))).toEqual([
      [{ kind: "literal", name: "ls", base: "ls" }],
      [{ kind: "literal", name: "rm", base: "rm" }],
    ])
  })
})

describe("withPlaceholder", () => {
  it("marks the text a wrapper fills in as unknown", () => {
    expect(commandWord(withPlaceholder(token("X"), "X"))).toMatchObject({ kind: "computed" })
    expect(withPlaceholder(token("rm"), "X")).toEqual(token("rm"))
    expect(withPlaceholder(token("rm"), undefined)).toEqual(token("rm"))
  })
})
