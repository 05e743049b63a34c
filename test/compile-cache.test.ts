// bin/toolbelt.js caches V8's compiled code across starts only in a directory this user alone can write:
// never Node's default (the shared system temp dir, where another local account could plant compiled
// code first), never a directory another account owns or can write, never through a link. Checked on a
// copy of bin/toolbelt.js whose build only prints the cache directory Node was given.
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const BIN = join(resolve(import.meta.dirname, ".."), "bin", "toolbelt.js")

let dirs: string[] = []
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
})

/** A package whose build prints Node's compile cache directory, and a home for it. */
function layout(): { root: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), "toolbelt-cache-"))
  dirs.push(base)
  const root = join(base, "toolbelt")
  mkdirSync(join(root, "bin"), { recursive: true })
  mkdirSync(join(root, "dist"))
  copyFileSync(BIN, join(root, "bin", "toolbelt.js"))
  writeFileSync(join(root, "package.json"), '{"type":"module"}')
  writeFileSync(
    join(root, "dist", "cli.bundle.cjs"),
    'const { getCompileCacheDir } = require("node:module")\nconsole.log(getCompileCacheDir() ?? "none")\n',
  )
  const home = join(base, "home")
  mkdirSync(home, { mode: 0o700 })
  return { root, home }
}

function cacheDir(root: string, env: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, [join(root, "bin", "toolbelt.js")], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, TOOLBELT_RUN: "build", ...env },
  })
  expect(result.stderr).toBe("")
  return result.stdout.trim()
}

describe("the compile cache", () => {
  it("lives under the user's cache directory, made private, never in the shared temp dir", () => {
    const { root, home } = layout()
    const dir = cacheDir(root, { HOME: home })
    expect(dir.startsWith(join(home, ".cache", "toolbelt", "compile-cache"))).toBe(true)
    expect(statSync(join(home, ".cache", "toolbelt", "compile-cache")).mode & 0o777).toBe(0o700)
    expect(dir.startsWith(tmpdir().replace(/\/$/, "") + "/node-compile-cache")).toBe(false)
  })

  it("without HOME, lives under the account's home from the password database", () => {
    const { root } = layout()
    const home = userInfo().homedir
    const dir = cacheDir(root, {})
    expect(dir.startsWith(join(home, ".cache", "toolbelt", "compile-cache")), dir).toBe(true)
  })

  it("follows XDG_CACHE_HOME when it is absolute, and ignores it when it is relative", () => {
    const { root, home } = layout()
    const xdg = join(home, "xdg")
    expect(cacheDir(root, { HOME: home, XDG_CACHE_HOME: xdg }).startsWith(join(xdg, "toolbelt"))).toBe(true)
    expect(cacheDir(root, { HOME: home, XDG_CACHE_HOME: "rel" }).startsWith(join(home, ".cache"))).toBe(true)
  })

  it("is not used when others can write it or the directory above it", () => {
    const { root, home } = layout()
    const own = join(home, ".cache", "toolbelt")
    mkdirSync(join(own, "compile-cache"), { recursive: true })
    chmodSync(own, 0o777)
    expect(cacheDir(root, { HOME: home })).toBe("none")
    chmodSync(own, 0o700)
    chmodSync(join(own, "compile-cache"), 0o775)
    expect(cacheDir(root, { HOME: home })).toBe("none")
  })

  it("is not used through a link", () => {
    const { root, home } = layout()
    const elsewhere = join(home, "elsewhere")
    mkdirSync(elsewhere, { mode: 0o700 })
    mkdirSync(join(home, ".cache", "toolbelt"), { recursive: true, mode: 0o700 })
    symlinkSync(elsewhere, join(home, ".cache", "toolbelt", "compile-cache"))
    expect(cacheDir(root, { HOME: home })).toBe("none")
  })

  it.runIf(process.getuid?.() === 0)("is not used when another account owns it", () => {
    const { root, home } = layout()
    const dir = join(home, ".cache", "toolbelt", "compile-cache")
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chownSync(dir, 65534, 65534)
    expect(cacheDir(root, { HOME: home })).toBe("none")
  })

  it("is the user's own when NODE_COMPILE_CACHE names one", () => {
    const { root, home } = layout()
    const chosen = join(home, "chosen")
    expect(cacheDir(root, { HOME: home, NODE_COMPILE_CACHE: chosen }).startsWith(chosen)).toBe(true)
  })
})
