import { describe, expect, it } from "vitest"
import { typeFilter } from "./ripgrep.ts"

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
  })
})
