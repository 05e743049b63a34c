import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BUILTIN_SERVERS } from "./builtin-servers.ts"

const bin = mkdtempSync(join(tmpdir(), "toolbelt-builtin-servers-"))
afterAll(() => rmSync(bin, { recursive: true, force: true }))

/** Where a server is launched: an empty project, and PATH holding only `programs`. */
function place(...programs: string[]) {
  for (const program of programs) {
    writeFileSync(join(bin, program), "#!/bin/sh\n")
    chmodSync(join(bin, program), 0o755)
  }
  return { root: bin, directory: bin, env: { PATH: bin } }
}

describe("the built-in servers' table", () => {
  it("starts each found program with its arguments, and none with an empty one", () => {
    const launch = (id: string, program: string) => BUILTIN_SERVERS.get(id)!.launch(place(program))
    expect(launch("gopls", "gopls")).toEqual({ argv: [join(bin, "gopls")] })
    expect(launch("pyright", "pyright-langserver")).toEqual({
      argv: [join(bin, "pyright-langserver"), "--stdio"],
    })
    expect(launch("dart", "dart")).toEqual({ argv: [join(bin, "dart"), "language-server", "--protocol=lsp"] })
  })

  it("says how to install a program it does not find", () => {
    const launch = BUILTIN_SERVERS.get("zls")!.launch({ root: bin, directory: bin, env: { PATH: "" } })
    expect(launch).toEqual({
      missing:
        "zls was not found on PATH or in the project's node_modules/.bin (install: a zls release matching your zig)",
    })
  })

  it("knows each server by its id, with the extensions and root markers of its row", () => {
    const clangd = BUILTIN_SERVERS.get("clangd")!
    expect(clangd.extensions).toContain(".cpp")
    expect(clangd.rootMarkers).toContain("compile_commands.json")
    expect(BUILTIN_SERVERS.get("bash")!.rootMarkers).toEqual([])
    expect(BUILTIN_SERVERS.size).toBe(26)
  })
})
