import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { SearchError } from "./backend.ts"
import { FallbackBackend } from "./fallback.ts"
import { RipgrepBackend } from "./ripgrep.ts"
import { listingBackend, searchBackend, which } from "./select.ts"
import { searchSettings } from "./settings.ts"

const bin = mkdtempSync(join(tmpdir(), "toolbelt-which-"))
const fakeRg = join(bin, "rg")
writeFileSync(fakeRg, "#!/bin/sh\n")
chmodSync(fakeRg, 0o755)
writeFileSync(join(bin, "not-executable"), "")
afterAll(() => rmSync(bin, { recursive: true, force: true }))

describe("listingBackend (glob)", () => {
  it("lists with the in-process walker, even with rg on PATH or configured", () => {
    expect(listingBackend({}, { PATH: bin })).toBeInstanceOf(FallbackBackend)
    expect(listingBackend({ ripgrepPath: fakeRg }, { PATH: bin })).toBeInstanceOf(FallbackBackend)
    expect(listingBackend({}, { PATH: "/nowhere" })).toBeInstanceOf(FallbackBackend)
  })

  it("lists with rg --files when ripgrep is forced, and refuses what searchBackend refuses", () => {
    expect(listingBackend({ backend: "ripgrep" }, { PATH: bin })).toBeInstanceOf(RipgrepBackend)
    expect(listingBackend({}, { PATH: bin, TOOLBELT_SEARCH_BACKEND: "ripgrep" })).toBeInstanceOf(
      RipgrepBackend,
    )
    expect(() => listingBackend({ backend: "ripgrep" }, { PATH: "/nowhere" })).toThrow(SearchError)
    expect(() => listingBackend({}, { TOOLBELT_SEARCH_BACKEND: "grep" })).toThrow(
      'Unknown search backend "grep"',
    )
  })
})

describe("searchBackend", () => {
  it("uses ripgrep when rg is on PATH, the fallback otherwise", () => {
    const withRg = searchBackend({}, { PATH: bin })
    expect(withRg).toBeInstanceOf(RipgrepBackend)
    expect((withRg as RipgrepBackend).binary).toBe(fakeRg)
    expect(searchBackend({}, { PATH: join(bin, "nothing-here") })).toBeInstanceOf(FallbackBackend)
  })

  it("can be forced either way, by the caller or TOOLBELT_SEARCH_BACKEND", () => {
    expect(searchBackend({ backend: "fallback" }, { PATH: bin })).toBeInstanceOf(FallbackBackend)
    expect(searchBackend({}, { PATH: bin, TOOLBELT_SEARCH_BACKEND: "fallback" })).toBeInstanceOf(
      FallbackBackend,
    )
    expect(searchBackend({ backend: "ripgrep" }, { PATH: bin })).toBeInstanceOf(RipgrepBackend)
    expect(() => searchBackend({ backend: "ripgrep" }, { PATH: "/nowhere" })).toThrow(SearchError)
    expect(() => searchBackend({}, { TOOLBELT_SEARCH_BACKEND: "grep" })).toThrow(
      'Unknown search backend "grep"',
    )
  })

  it("takes a configured rg path, from the caller or TOOLBELT_RIPGREP_PATH", () => {
    expect((searchBackend({ ripgrepPath: "/opt/rg" }, {}) as RipgrepBackend).binary).toBe("/opt/rg")
    expect((searchBackend({}, { TOOLBELT_RIPGREP_PATH: "/opt/rg2" }) as RipgrepBackend).binary).toBe(
      "/opt/rg2",
    )
  })

  it("reuses one backend per binary", () => {
    expect(searchBackend({}, { PATH: bin })).toBe(searchBackend({}, { PATH: bin }))
    expect(searchBackend({ backend: "fallback" })).toBe(searchBackend({ backend: "fallback" }))
  })

  it("fails clearly when the configured rg does not exist", async () => {
    const backend = searchBackend({ ripgrepPath: join(bin, "missing-rg") }, {})
    await expect(backend.files(bin)).rejects.toThrow(`ripgrep not found at ${join(bin, "missing-rg")}`)
  })
})

describe("which", () => {
  it("finds executables only", () => {
    expect(which("rg", { PATH: `/nowhere:${bin}` })).toBe(fakeRg)
    expect(which("not-executable", { PATH: bin })).toBeUndefined()
  })
})

describe("searchSettings", () => {
  it("reads the timeout and backend from a context's extra, ignoring bad values", () => {
    expect(searchSettings({})).toEqual({ choice: {}, timeoutMs: 30_000 })
    expect(searchSettings({ searchTimeoutMs: 500, searchBackend: "fallback", ripgrepPath: "/x/rg" })).toEqual(
      {
        choice: { backend: "fallback", ripgrepPath: "/x/rg" },
        timeoutMs: 500,
      },
    )
    expect(searchSettings({ searchTimeoutMs: "soon", searchBackend: "other", ripgrepPath: 3 })).toEqual({
      choice: {},
      timeoutMs: 30_000,
    })
  })
})

describe("which, beside a project", () => {
  it("never takes a program from a relative PATH entry, which would resolve inside the current project", () => {
    const relativeBin = relative(process.cwd(), bin)
    expect(relativeBin.startsWith("/")).toBe(false)
    expect(which("rg", { PATH: relativeBin })).toBeUndefined()
    expect(which("rg", { PATH: `.:${relativeBin}:${bin}` })).toBe(fakeRg)
  })
})
