import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { OutputStore } from "./store.ts"

// A disk that fills up can only be faked: rename, the last step of a write, fails the way ENOSPC does.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>()
  return {
    ...actual,
    rename: vi.fn(async () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, rename"), { code: "ENOSPC" })
    }),
  }
})

let root: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-store-failure-"))
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe("OutputStore.write when the disk is full", () => {
  it("says so, keeps the cause, and removes the partly written temp file", async () => {
    const store = new OutputStore({ dir: root })
    const failure = await store.write("x".repeat(3_000_000)).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).message).toMatch(
      /^The full tool output could not be saved to .*: the disk is full \(ENOSPC/,
    )
    expect((failure as Error).cause).toMatchObject({ code: "ENOSPC" })
    expect(await readdir(root)).toEqual([])
  })
})
