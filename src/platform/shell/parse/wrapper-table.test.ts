import { describe, expect, it } from "vitest"
import { toolName } from "./arity.ts"
import { MULTICALL, SHELLS, WRAPPERS } from "./wrapper-table.ts"
import { unwrap } from "./wrappers.ts"

const names = Object.keys(WRAPPERS)
const programs = names.filter((name) => !name.includes(" "))
const subcommands = names.filter((name) => name.includes(" "))

describe("wrapper table", () => {
  it.each([...programs, ...SHELLS, ...MULTICALL])("%s is looked up by the name the scan gives it", (name) => {
    expect(toolName(name)).toBe(name)
    expect(toolName(`/usr/bin/${name}`)).toBe(name)
  })

  it.each(subcommands)("%s is reached: its program is not a wrapper of its own", (name) => {
    const [program, sub, ...rest] = name.split(" ")
    expect(rest).toEqual([])
    expect(programs).not.toContain(program)
    // The operands a wrapper takes before its command (`direnv exec DIR`).
    const operands = Array.from({ length: WRAPPERS[name]!.positional ?? 0 }, () => "dir")
    const all = [program!, sub!, ...operands, "rm", "x"]
    expect(unwrap(all)).toMatchObject([{ kind: "exec", start: all.length - 2, end: all.length, via: name }])
  })
})
