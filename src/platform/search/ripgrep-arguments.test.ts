import { describe, expect, it } from "vitest"
import { matchFlags, narrowing, typeFilter, walkFlags } from "./ripgrep-arguments.ts"

describe("typeFilter", () => {
  it("turns file-name globs into a ripgrep file type (applied after the ignore rules)", () => {
    expect(typeFilter(["**/*.c"])).toEqual(["--type-add", "toolbeltinclude:*.c", "--type", "toolbeltinclude"])
    expect(typeFilter(["*.{ts,tsx}", "Kconfig"])).toEqual([
      "--type-add",
      "toolbeltinclude:*.ts",
      "--type-add",
      "toolbeltinclude:*.tsx",
      "--type-add",
      "toolbeltinclude:Kconfig",
      "--type",
      "toolbeltinclude",
    ])
  })

  it("leaves paths and anything ripgrep's type syntax cannot hold to the JavaScript filter", () => {
    expect(typeFilter(undefined)).toEqual([])
    expect(typeFilter(["src/*.c"])).toEqual([])
    expect(typeFilter(["*.c", "src/**"])).toEqual([])
    expect(typeFilter(["a:b"])).toEqual([])
    expect(typeFilter(["*.{a,{b,c}}"])).toEqual([])
    expect(typeFilter(["a,b"])).toEqual([])
    expect(typeFilter(["+(a)"])).toEqual([])
    expect(typeFilter(["[id].tsx"])).toEqual([])
    expect(typeFilter(["page{1..3}.md"])).toEqual([])
  })
})

describe("narrowing", () => {
  it("uses the file type only while hidden files are listed (a type would bypass rg's hidden check)", () => {
    expect(narrowing(["*.c"], {})).toEqual(typeFilter(["*.c"]))
    expect(narrowing(["*.c"], { hidden: false })).toEqual([])
  })
})

describe("walkFlags and matchFlags", () => {
  it.each([
    [{}, ["--hidden"]],
    [{ hidden: false }, []],
    [{ follow: true }, ["--hidden", "--follow"]],
  ])("walks %j with %j", (options, flags) => {
    expect(walkFlags(options)).toEqual(flags)
  })

  it.each([
    [{}, ["--case-sensitive"]],
    [{ ignoreCase: true }, ["--ignore-case"]],
    [{ fixedStrings: true }, ["--case-sensitive", "--fixed-strings"]],
  ])("matches %j with %j", (options, flags) => {
    expect(matchFlags(options)).toEqual(flags)
  })
})
