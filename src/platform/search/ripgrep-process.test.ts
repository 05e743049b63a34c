import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runRipgrep, splitter } from "./ripgrep-process.ts"

describe("splitter", () => {
  it("gives whole records across chunks, a character split between chunks intact, the last one at the end", () => {
    const records: string[] = []
    const split = splitter(0, (record) => records.push(record))
    const bytes = Buffer.from("a.txt\0dé/b.txt\0tail", "utf8")
    const cut = bytes.indexOf(0xc3) + 1
    split(bytes.subarray(0, 3), false)
    split(bytes.subarray(3, cut), false)
    expect(records).toEqual(["a.txt"])
    split(bytes.subarray(cut), false)
    expect(records).toEqual(["a.txt", "dé/b.txt"])
    split(Buffer.alloc(0), true)
    expect(records).toEqual(["a.txt", "dé/b.txt", "tail"])
  })
})

describe("runRipgrep", () => {
  // A stand-in for rg that prints one record and then hangs.
  let dir: string
  let binary: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "rg-process-"))
    binary = join(dir, "hanging-rg.sh")
    writeFileSync(binary, "#!/bin/sh\nprintf 'one\\000'\nexec sleep 28.5\n", { mode: 0o755 })
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("rejects with the error the output handler throws, and kills rg", async () => {
    const run = runRipgrep({
      binary,
      args: [],
      timeoutMs: 20_000,
      onData: () => {
        throw new Error("bad record")
      },
    })
    await expect(run).rejects.toThrow("bad record")
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain("sleep 28.5")
  })

  it("says where it looked when rg is missing", async () => {
    const missing = join(dir, "missing-rg")
    await expect(runRipgrep({ binary: missing, args: [], onData: () => {} })).rejects.toThrow(
      `ripgrep not found at ${missing}`,
    )
  })
})
