import { createHash } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { EMPTY_SHA256, fingerprintFiles } from "./fingerprint.ts"

describe("fingerprintFiles", () => {
  let dir: string | undefined
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it("gives no files the sha256 of no bytes, the same as hashing them would", async () => {
    expect(EMPTY_SHA256).toBe(createHash("sha256").digest("hex"))
    expect(await fingerprintFiles([])).toBe(EMPTY_SHA256)
  })

  it("changes with a file's content and is the same for the same files in any order", async () => {
    dir = await mkdtemp(join(tmpdir(), "toolbelt-fingerprint-"))
    const a = join(dir, "a.ts")
    const b = join(dir, "b.ts")
    await writeFile(a, "one")
    await writeFile(b, "two")
    const first = await fingerprintFiles([a, b])
    expect(first).not.toBe(EMPTY_SHA256)
    expect(await fingerprintFiles([b, a, b])).toBe(first)
    await writeFile(b, "three")
    expect(await fingerprintFiles([a, b])).not.toBe(first)
  })
})
