import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { defaultDataDir, outputDir } from "./data-dir.ts"

describe("defaultDataDir", () => {
  it("prefers TOOLBELT_DATA_DIR", () => {
    expect(defaultDataDir({ TOOLBELT_DATA_DIR: "/data/tb", XDG_DATA_HOME: "/xdg", HOME: "/home/u" })).toBe(
      "/data/tb",
    )
  })

  it("resolves a relative TOOLBELT_DATA_DIR against the working directory", () => {
    expect(defaultDataDir({ TOOLBELT_DATA_DIR: ".toolbelt-data" })).toBe(resolve(".toolbelt-data"))
  })

  it("falls back to $XDG_DATA_HOME/toolbelt", () => {
    expect(defaultDataDir({ TOOLBELT_DATA_DIR: "", XDG_DATA_HOME: "/xdg", HOME: "/home/u" })).toBe(
      "/xdg/toolbelt",
    )
  })

  it("ignores a relative XDG_DATA_HOME, as the XDG spec says", () => {
    expect(defaultDataDir({ XDG_DATA_HOME: "rel", HOME: "/home/u" })).toBe("/home/u/.local/share/toolbelt")
  })

  it("falls back to ~/.local/share/toolbelt", () => {
    expect(defaultDataDir({ HOME: "/home/u" })).toBe("/home/u/.local/share/toolbelt")
    expect(defaultDataDir({})).toBe(join(homedir(), ".local", "share", "toolbelt"))
  })
})

describe("outputDir", () => {
  it("is tool-output inside the data dir", () => {
    expect(outputDir("/data/tb")).toBe("/data/tb/tool-output")
  })
})
