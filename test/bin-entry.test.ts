// bin/toolbelt.js runs the build only while it is current: a developer's edit under src/ must never be
// shadowed by a stale bundle, and an installed package always runs its build. Checked on a copy of
// bin/toolbelt.js in a temp layout whose two entries say which one ran; file times are set explicitly.
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const BIN = join(resolve(import.meta.dirname, ".."), "bin", "toolbelt.js")
const BUILD_STARTED = Date.parse("2026-01-01T12:00:00Z")
const BEFORE = new Date(BUILD_STARTED - 60_000)
const AFTER = new Date(BUILD_STARTED + 60_000)

let dirs: string[] = []
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
})

/** A package at `<tmp>/<under>`: sources older than a finished build, unless a test changes them. */
function layout(under = "toolbelt"): string {
  const base = mkdtempSync(join(tmpdir(), "toolbelt-bin-"))
  dirs.push(base)
  const root = join(base, under)
  for (const dir of ["bin", "src/surfaces/cli", "src/tools/read", "dist"])
    mkdirSync(join(root, dir), { recursive: true })
  copyFileSync(BIN, join(root, "bin", "toolbelt.js"))
  writeFileSync(join(root, "package.json"), '{"type":"module"}')
  writeFileSync(join(root, "src", "surfaces", "cli", "bin.ts"), 'console.log("source")\n')
  writeFileSync(join(root, "src", "tools", "read", "read.ts"), "export {}\n")
  writeFileSync(join(root, "src", "tools", "read", "read.test.ts"), "export {}\n")
  writeFileSync(join(root, "dist", "cli.bundle.cjs"), 'console.log("build")\n')
  writeFileSync(join(root, "dist", "build-stamp.json"), JSON.stringify({ started: BUILD_STARTED }))
  const sources = [
    "src",
    "src/surfaces",
    "src/surfaces/cli",
    "src/surfaces/cli/bin.ts",
    "src/tools",
    "src/tools/read",
    "src/tools/read/read.ts",
  ]
  for (const path of [...sources, "src/tools/read/read.test.ts"]) utimesSync(join(root, path), BEFORE, BEFORE)
  return root
}

function runs(root: string, env: NodeJS.ProcessEnv = {}): string {
  const result = spawnSync(process.execPath, [join(root, "bin", "toolbelt.js")], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, ...env },
  })
  expect(result.stderr).toBe("")
  return result.stdout.trim()
}

describe("bin/toolbelt.js chooses what to run", () => {
  it("runs the build when no source changed since the build started", () => {
    expect(runs(layout())).toBe("build")
  })

  it("runs the sources once a source file is newer than the build's start", () => {
    const root = layout()
    utimesSync(join(root, "src", "tools", "read", "read.ts"), AFTER, AFTER)
    expect(runs(root)).toBe("source")
  })

  it("runs the sources when a file was added or removed since (its folder changed)", () => {
    const root = layout()
    utimesSync(join(root, "src", "tools", "read"), AFTER, AFTER)
    expect(runs(root)).toBe("source")
  })

  it("ignores edits to tests, which the build does not contain", () => {
    const root = layout()
    utimesSync(join(root, "src", "tools", "read", "read.test.ts"), AFTER, AFTER)
    expect(runs(root)).toBe("build")
  })

  it("ignores edits under a fixtures folder, at any depth, but not to a file beside it", () => {
    const root = layout()
    const fixtures = join(root, "src", "tools", "read", "fixtures", "deep")
    mkdirSync(fixtures, { recursive: true })
    writeFileSync(join(fixtures, "page.ts"), "export {}\n")
    for (const path of [fixtures, join(fixtures, ".."), join(root, "src", "tools", "read")])
      utimesSync(path, BEFORE, BEFORE)
    utimesSync(join(fixtures, "page.ts"), AFTER, AFTER)
    expect(runs(root)).toBe("build")
    utimesSync(join(root, "src", "tools", "read", "read.ts"), AFTER, AFTER)
    expect(runs(root)).toBe("source")
  })

  it("runs the sources when there is no finished build", () => {
    const root = layout()
    rmSync(join(root, "dist", "build-stamp.json"))
    expect(runs(root)).toBe("source")
  })

  it("runs the build of an installed package, and what TOOLBELT_RUN forces", () => {
    const installed = layout(join("node_modules", "agent-toolbelt"))
    utimesSync(join(installed, "src", "tools", "read", "read.ts"), AFTER, AFTER)
    expect(runs(installed)).toBe("build")
    const clone = layout()
    expect(runs(clone, { TOOLBELT_RUN: "source" })).toBe("source")
    utimesSync(join(clone, "src", "surfaces", "cli", "bin.ts"), AFTER, AFTER)
    expect(runs(clone, { TOOLBELT_RUN: "build" })).toBe("build")
  })
})
