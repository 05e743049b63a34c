// bin/toolbelt.js run as a program: its shell lines pick the Node (the one pinned beside it) and give
// `serve` its young-generation cap, before any JavaScript runs. Checked with a stand-in for the pinned
// Node that prints what it was started with.
import { spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const bin = fileURLToPath(new URL("../bin/toolbelt.js", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "toolbelt-launcher-"))
const copy = join(dir, "bin", "toolbelt.js")
mkdirSync(join(dir, "bin"))
mkdirSync(join(dir, "node_modules", "node", "bin"), { recursive: true })
copyFileSync(bin, copy)
chmodSync(copy, 0o755)
const standIn = join(dir, "node_modules", "node", "bin", "node")
writeFileSync(standIn, '#!/bin/sh\nprintf "%s\\n" "$@"\n')
chmodSync(standIn, 0o755)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The arguments the pinned Node was started with, one per line. */
function started(args: string[], env: NodeJS.ProcessEnv = {}): string[] {
  const result = spawnSync(copy, args, { encoding: "utf8", env: { PATH: process.env.PATH, ...env } })
  expect(result.status).toBe(0)
  return result.stdout.trim().split("\n")
}

describe("bin/toolbelt.js as a program", () => {
  it("starts the pinned Node on itself with the arguments as given", () => {
    expect(started(["call", "read", "{}"])).toEqual([copy, "call", "read", "{}"])
  })

  it("caps serve's semi-spaces at 8 MiB, unless NODE_OPTIONS sets a size", () => {
    expect(started(["serve", "--port", "0"])).toEqual([
      "--max-semi-space-size=8",
      copy,
      "serve",
      "--port",
      "0",
    ])
    expect(started(["serve"], { NODE_OPTIONS: "--max-semi-space-size=2" })).toEqual([copy, "serve"])
  })
})
