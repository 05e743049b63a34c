import { execFileSync } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTree } from "./fixtures/tree.ts"
import { RipgrepBackend } from "./ripgrep.ts"

describe("RipgrepBackend past its time limit", () => {
  // A stand-in for rg that prints two files and then hangs, so the limit always strikes mid-run.
  let dir: string
  let binary: string
  beforeAll(() => {
    dir = makeTree({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" })
    binary = join(dir, "slow-rg.sh")
    writeFileSync(binary, "#!/bin/sh\nprintf './a.txt\\000./b.txt\\000'\nexec sleep 29.5\n", { mode: 0o755 })
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("returns the files listed before the limit, says it timed out, and leaves no process", async () => {
    const backend = new RipgrepBackend(binary)
    const result = await backend.files(dir, { pattern: ["*.txt"], timeoutMs: 300 })
    expect(result.timedOut).toBe(true)
    expect(result.total).toBe(2)
    expect(result.files.map((file) => file.path).sort()).toEqual([join(dir, "a.txt"), join(dir, "b.txt")])
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain("sleep 29.5")
  })
})
