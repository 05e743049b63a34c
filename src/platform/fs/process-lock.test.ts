import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { once } from "node:events"
import { existsSync, readdirSync } from "node:fs"
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { configureFileLocks, type FileLockSettings, withFileLock } from "./lock.ts"
import { SWEEP_AGE_MS, sweepStaleLocks } from "./lock-sweep.ts"
import { currentProcess } from "./process-identity.ts"
import {
  acquireProcessLock,
  FileLockTimeoutError,
  type LockHolder,
  lockFileOf,
  readHolder,
  removeStale,
} from "./process-lock.ts"

const holderScript = join(import.meta.dirname, "fixtures", "lock-holder.ts")
let dir: string
let lockDir: string
let file: string
let previous: FileLockSettings
const children: ChildProcess[] = []

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-xlock-")))
  lockDir = join(dir, "locks")
  file = join(dir, "file.txt")
  await writeFile(file, "x")
  previous = configureFileLocks({ dir: lockDir, crossProcess: true })
})

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL")
  configureFileLocks(previous)
  await rm(dir, { recursive: true, force: true })
})

/** Starts the fixture in its own process, sharing this test's lock directory. */
function holder(mode: string, ...args: string[]): ChildProcess {
  const child = spawn(process.execPath, [holderScript, mode, ...args], {
    env: { ...process.env, TOOLBELT_LOCK_DIR: lockDir },
    stdio: ["ignore", "pipe", "inherit"],
  })
  children.push(child)
  return child
}

/** A child that holds the lock of `file`, once it says so. */
async function lockedByChild(): Promise<ChildProcess> {
  const child = holder("hold", file)
  let out = ""
  for await (const chunk of child.stdout!) {
    out += chunk
    if (out.includes("locked")) break
  }
  return child
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"])
  await once(child, "exit")
  return child.pid!
}

async function plantLock(path: string, holder: Partial<LockHolder>): Promise<void> {
  const content: LockHolder = {
    pid: 0,
    start: "1",
    boot: "",
    since: Date.now(),
    // Random, as real nonces are: a late sweep or waiter from an earlier test removes a stale lock only
    // if the nonce still matches, and a fixed one let it remove the lock a later test had just planted.
    nonce: randomBytes(8).toString("hex"),
    path: file,
    ...holder,
  }
  await writeFile(path, JSON.stringify(content))
}

describe("the cross-process file lock", () => {
  test("a writer waits for another process's lock, then fails saying who holds it and to retry", async () => {
    const child = await lockedByChild()
    let ran = false
    const error = await withFileLock(
      file,
      () => {
        ran = true
      },
      { waitMs: 300 },
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(FileLockTimeoutError)
    expect(ran).toBe(false)
    const message = (error as Error).message
    expect(message).toContain(`The file ${file} is locked: another toolbelt process (pid ${child.pid})`)
    expect(message).toMatch(/has been changing it since \d{4}-\d\d-\d\dT/)
    expect(message).toContain("Retry the edit")
  })

  test("the holder killed with kill -9: the next writer takes its lock over", async () => {
    const child = await lockedByChild()
    child.kill("SIGKILL")
    await once(child, "exit")
    expect(existsSync(lockFileOf(file, lockDir))).toBe(true)
    expect(await withFileLock(file, () => "ran", { waitMs: 5000 })).toBe("ran")
    expect(readdirSync(lockDir)).toEqual([])
  })

  test("a holder that exits while holding the lock leaves none behind", async () => {
    const child = holder("exit", file)
    await once(child, "exit")
    expect(child.exitCode).toBe(0)
    expect(readdirSync(lockDir)).toEqual([])
  })

  test("waiting for another process's lock is abortable", async () => {
    await lockedByChild()
    const controller = new AbortController()
    const waiting = withFileLock(file, () => "ran", { signal: controller.signal, waitMs: 60_000 })
    setTimeout(() => controller.abort(new Error("stop waiting")), 50)
    await expect(waiting).rejects.toThrow("stop waiting")
  })

  test("many processes waiting on a dead holder's lock: one at a time gets it, every one gets it", async () => {
    await withFileLock(file, () => {}) // creates the lock directory
    await plantLock(lockFileOf(file, lockDir), { pid: await deadPid() })
    const log = join(dir, "log")
    const workers = Array.from({ length: 8 }, () => holder("append", file, log))
    await writeFile(`${log}.go`, "")
    await Promise.all(workers.map((worker) => once(worker, "exit")))
    expect(workers.map((worker) => worker.exitCode)).toEqual(workers.map(() => 0))
    const lines = (await readFile(log, "utf8")).trim().split("\n")
    expect(lines).toHaveLength(16)
    for (let i = 0; i < lines.length; i += 2) {
      expect(lines[i]).toMatch(/^in \d+$/)
      expect(lines[i + 1]).toBe(lines[i]!.replace("in", "out"))
    }
    expect(readdirSync(lockDir)).toEqual([])
  })

  test("a waiter that judged a lock stale after another waiter replaced it leaves the new lock alone", async () => {
    await withFileLock(file, () => {})
    const lock = lockFileOf(file, lockDir)
    await plantLock(lock, { pid: await deadPid() })
    // Waiter B reads the dead holder; before it acts, waiter A takes the lock over.
    const seen = readHolder(lock) as LockHolder
    const taken = await acquireProcessLock(file, { waitMs: 1000, dir: lockDir })
    const current = readHolder(lock) as LockHolder
    expect(current.nonce).not.toBe(seen.nonce)
    expect(removeStale(lock, seen)).toBe(true)
    expect(readHolder(lock)).toEqual(current)
    taken.release()
    expect(readdirSync(lockDir)).toEqual([])
  })

  test("while a live waiter removes a stale lock, the others wait instead of removing it too", async () => {
    await withFileLock(file, () => {})
    const lock = lockFileOf(file, lockDir)
    await plantLock(lock, { pid: await deadPid(), nonce: "0001" })
    await plantLock(`${lock}.claim-0001`, { ...currentProcess(), nonce: "0002" })
    expect(removeStale(lock, readHolder(lock) as LockHolder)).toBe(false)
    expect((readHolder(lock) as LockHolder).nonce).toBe("0001")
  })

  test("a waiter that died while removing a stale lock does not block the others", async () => {
    await withFileLock(file, () => {})
    const lock = lockFileOf(file, lockDir)
    await plantLock(lock, { pid: await deadPid(), nonce: "0001" })
    await plantLock(`${lock}.claim-0001`, { pid: await deadPid(), nonce: "0002" })
    expect(await withFileLock(file, () => "ran", { waitMs: 5000 })).toBe("ran")
    expect(readdirSync(lockDir)).toEqual([])
  })

  test.skipIf(!existsSync("/proc/self/stat"))(
    "a lock whose pid now belongs to a later process (another start time) is taken over",
    async () => {
      await withFileLock(file, () => {})
      await plantLock(lockFileOf(file, lockDir), { pid: process.pid, start: "1" })
      expect(await withFileLock(file, () => "ran", { waitMs: 5000 })).toBe("ran")
    },
  )

  test("a lock whose holder runs is never taken over, however old", async () => {
    await withFileLock(file, () => {})
    const lock = lockFileOf(file, lockDir)
    await plantLock(lock, { ...currentProcess(), since: 0 })
    const before = await readFile(lock, "utf8")
    await expect(withFileLock(file, () => "ran", { waitMs: 200 })).rejects.toThrow(
      `another toolbelt process (pid ${process.pid}) has been changing it since 1970-01-01T00:00:00.000Z`,
    )
    expect(await readFile(lock, "utf8")).toBe(before)
  })

  test("a lock taken on another host is never taken for dead: its pid means nothing here", async () => {
    await withFileLock(file, () => {})
    await plantLock(lockFileOf(file, lockDir), { pid: await deadPid(), host: "another-machine" })
    await expect(withFileLock(file, () => "ran", { waitMs: 100 })).rejects.toThrow(
      /another toolbelt process \(pid \d+ on another-machine\) has been changing it/,
    )
  })

  test("a lock file that names no holder is left alone and reported with its path", async () => {
    await withFileLock(file, () => {})
    const lock = lockFileOf(file, lockDir)
    await writeFile(lock, "not a lock")
    await expect(withFileLock(file, () => "ran", { waitMs: 100 })).rejects.toThrow(
      `its lock file ${lock} does not say who holds it (remove that file if no toolbelt process is running)`,
    )
    expect(await readFile(lock, "utf8")).toBe("not a lock")
  })

  test("a lock directory that cannot be made, or is not the user's own, is refused with what to do", async () => {
    configureFileLocks({ dir: join(file, "locks") })
    await expect(withFileLock(file, () => "ran")).rejects.toThrow(
      /^Cannot create the lock directory .*file\.txt\/locks \(ENOTDIR\), so the file cannot be locked against other toolbelt processes\. Set TOOLBELT_LOCK_DIR/,
    )
    const elsewhere = join(dir, "elsewhere")
    await mkdir(elsewhere)
    await symlink(elsewhere, join(dir, "linked"))
    configureFileLocks({ dir: join(dir, "linked") })
    await expect(withFileLock(file, () => "ran")).rejects.toThrow(
      `The lock directory ${join(dir, "linked")} is not a directory owned by this user`,
    )
  })

  test("a sweep removes what dead holders left over a minute ago, and nothing else", async () => {
    await withFileLock(file, () => {})
    const old = Date.now() - 2 * SWEEP_AGE_MS
    const dead = await deadPid()
    const at = (name: string) => join(lockDir, name)
    await plantLock(at("a.lock"), { pid: dead, since: old, nonce: "000a" })
    await plantLock(at("b.lock.claim-000b"), { pid: dead, since: old, nonce: "000c" })
    await plantLock(at("c.lock.000d.new"), { pid: dead, since: old, nonce: "000d" })
    await plantLock(at("live.lock"), { ...currentProcess(), since: old })
    await plantLock(at("fresh.lock"), { pid: dead })
    await writeFile(at("foreign.lock"), "not a lock")
    expect(await sweepStaleLocks(lockDir)).toBe(3)
    expect(readdirSync(lockDir).sort()).toEqual(["foreign.lock", "fresh.lock", "live.lock"])
  })

  test("with the cross-process lock off, another process's lock is not waited for", async () => {
    await lockedByChild()
    configureFileLocks({ crossProcess: false })
    expect(await withFileLock(file, () => "ran", { waitMs: 100 })).toBe("ran")
  })
})
