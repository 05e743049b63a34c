import { execFileSync } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { NotRegularFileError, openRegular } from "./open-regular.ts"
import { hashFile } from "./read-ledger.ts"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-open-regular-"))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe("openRegular", () => {
  it("opens a regular file for reading", async () => {
    await writeFile(join(dir, "a.txt"), "hello")
    const handle = await openRegular(join(dir, "a.txt"))
    try {
      expect((await handle.readFile()).toString()).toBe("hello")
    } finally {
      await handle.close()
    }
  })

  it.runIf(process.platform !== "win32")(
    "refuses a FIFO without waiting for a writer, naming what it is (hashFile too)",
    async () => {
      const fifo = join(dir, "pipe")
      execFileSync("mkfifo", [fifo])
      // A blocking open would never return here: no one ever opens the FIFO for writing.
      await expect(openRegular(fifo)).rejects.toThrow(NotRegularFileError)
      await expect(openRegular(fifo)).rejects.toThrow(`${fifo} is a named pipe (FIFO), not a regular file`)
      await expect(hashFile(fifo)).rejects.toThrow(NotRegularFileError)
    },
  )

  it("refuses a directory", async () => {
    await expect(openRegular(dir)).rejects.toThrow(`${dir} is a directory, not a regular file`)
  })
})
