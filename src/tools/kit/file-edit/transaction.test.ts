import { existsSync, readdirSync } from "node:fs"
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { RecoveryLog } from "../../../platform/fs/recovery-log.ts"
import { commit } from "./transaction.ts"

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-transaction-"))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const at = (name: string) => join(dir, name)
const exists = (name: string) =>
  stat(at(name)).then(
    () => true,
    () => false,
  )

describe("commit", () => {
  it("writes and removes in order", async () => {
    await writeFile(at("a"), "a")
    await writeFile(at("b"), "b")
    const result = await commit([
      { path: at("a"), content: "A" },
      { path: at("new/c"), content: "C" },
      { path: at("b"), content: null },
    ])
    expect(result).toEqual({ ok: true })
    expect(await readFile(at("a"), "utf8")).toBe("A")
    expect(await readFile(at("new/c"), "utf8")).toBe("C")
    expect(await exists("b")).toBe(false)
  })

  it("undoes everything when an operation fails, a path touched twice included", async () => {
    await writeFile(at("a"), "original a", { mode: 0o600 })
    await writeFile(at("gone"), "original gone")
    await writeFile(at("file"), "not a directory")
    const result = await commit([
      { path: at("a"), content: "first" },
      { path: at("a"), content: "second" },
      { path: at("gone"), content: null },
      { path: at("x/y/new"), content: "new" },
      { path: at("file/child"), content: "fails" },
    ])
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failed.path).toBe(at("file/child"))
    expect(result.restored).toEqual([at("x/y/new"), at("gone"), at("a")])
    expect(result.unrestored).toEqual([])
    expect(await readFile(at("a"), "utf8")).toBe("original a")
    expect((await stat(at("a"))).mode & 0o777).toBe(0o600)
    expect(await readFile(at("gone"), "utf8")).toBe("original gone")
    expect(await exists("x")).toBe(false)
    expect(await readFile(at("file"), "utf8")).toBe("not a directory")
  })

  it("fails a removal of a missing file and restores what came before", async () => {
    await writeFile(at("a"), "a")
    const result = await commit([
      { path: at("a"), content: "changed" },
      { path: at("missing"), content: null },
    ])
    expect(result.ok).toBe(false)
    expect(await readFile(at("a"), "utf8")).toBe("a")
  })

  it("leaves a directory it created alone when something else put a file in it", async () => {
    await writeFile(at("file"), "x")
    const result = await commit([
      { path: at("d/new"), content: "n" },
      { path: at("file/child"), content: "fails" },
    ])
    expect(result.ok).toBe(false)
    expect(await exists("d")).toBe(false)
    await mkdir(at("keep"))
    await writeFile(at("keep/other"), "o")
    await commit([
      { path: at("keep/sub/new"), content: "n" },
      { path: at("file/child"), content: "fails" },
    ])
    expect(await exists("keep/other")).toBe(true)
    expect(await exists("keep/sub")).toBe(false)
  })
})

describe("commit with a recovery log", () => {
  const records = (log: RecoveryLog) => (existsSync(log.dir) ? readdirSync(log.dir) : [])

  it("records a change over several paths before the first rename and removes the record once it is complete", async () => {
    await writeFile(at("a"), "a")
    const log = new RecoveryLog({ dataDir: at("data"), project: dir })
    const result = await commit(
      [
        { path: at("a"), content: "A" },
        { path: at("b/c"), content: "C" },
      ],
      { recovery: log, label: "test" },
    )
    expect(result).toEqual({ ok: true })
    expect(await readFile(at("a"), "utf8")).toBe("A")
    expect(records(log)).toEqual([])
    // Nothing is left to roll back.
    expect(await log.recover()).toEqual([])
    expect(await readFile(at("a"), "utf8")).toBe("A")
  })

  it("removes the record after undoing a failed change too", async () => {
    await writeFile(at("a"), "a")
    await writeFile(at("file"), "not a directory")
    const log = new RecoveryLog({ dataDir: at("data"), project: dir })
    const result = await commit(
      [
        { path: at("a"), content: "A" },
        { path: at("file/child"), content: "fails" },
      ],
      { recovery: log },
    )
    expect(result.ok).toBe(false)
    expect(await readFile(at("a"), "utf8")).toBe("a")
    expect(records(log)).toEqual([])
  })

  it("fails before changing any file when the record cannot be written", async () => {
    await writeFile(at("a"), "a")
    await writeFile(at("data"), "a file where the data dir should be")
    const result = await commit(
      [
        { path: at("a"), content: "A" },
        { path: at("b"), content: "B" },
      ],
      { recovery: new RecoveryLog({ dataDir: at("data"), project: dir }) },
    )
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.restored).toEqual([])
    expect(await readFile(at("a"), "utf8")).toBe("a")
    expect(await exists("b")).toBe(false)
  })

  it("writes no record for a change of one path (its atomic write is enough)", async () => {
    const log = new RecoveryLog({ dataDir: at("data"), project: dir })
    expect(await commit([{ path: at("a"), content: "A" }], { recovery: log })).toEqual({ ok: true })
    expect(await exists("data")).toBe(false)
  })
})
