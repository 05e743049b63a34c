import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chooseShell } from "./shell.ts"

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-shell-"))
  await symlink("/bin/bash", join(dir, "bash"))
  await symlink("/bin/dash", join(dir, "dash"))
  await writeFile(join(dir, "fish"), "#!/bin/sh\n", { mode: 0o755 })
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe("chooseShell", () => {
  it("uses the configured shell, by name on PATH or by path", () => {
    expect(chooseShell({ configured: "dash", env: { PATH: dir } })).toEqual({
      path: join(dir, "dash"),
      name: "dash",
    })
    expect(chooseShell({ configured: "/bin/sh", env: { PATH: "" } })).toEqual({ path: "/bin/sh", name: "sh" })
  })

  it("refuses fish and nu, saying why", () => {
    expect(() => chooseShell({ configured: "fish", env: { PATH: dir } })).toThrow(
      /fish does not accept POSIX shell syntax/,
    )
    expect(() => chooseShell({ configured: "/opt/bin/nu", env: { PATH: dir } })).toThrow(/nushell/)
  })

  it("never replaces a configured shell that does not exist", () => {
    expect(() => chooseShell({ configured: "zsh", env: { PATH: dir } })).toThrow(/"zsh" was not found/)
  })

  it("takes $SHELL when it is a suitable shell", () => {
    expect(chooseShell({ env: { PATH: dir, SHELL: "/bin/dash" } })).toEqual({
      path: "/bin/dash",
      name: "dash",
    })
  })

  it("ignores an unsuitable $SHELL and falls back to bash, then sh", () => {
    expect(chooseShell({ env: { PATH: dir, SHELL: join(dir, "fish") } })).toEqual({
      path: join(dir, "bash"),
      name: "bash",
    })
    expect(chooseShell({ env: { PATH: join(dir, "none"), SHELL: "/usr/bin/fish" } })).toEqual({
      path: "/bin/sh",
      name: "sh",
    })
  })
})
