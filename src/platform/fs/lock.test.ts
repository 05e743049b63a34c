import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { writeFileAtomic } from "./atomic-write.ts"
import { canonicalPath } from "./canonical-path.ts"
import { lockedFileCount, withFileLock, withFileLocks } from "./lock.ts"

let dir: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-lock-")))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const tick = () => new Promise((resolve) => setTimeout(resolve, 1))

describe("canonicalPath", () => {
  test("an existing file, a symlink to it and a relative spelling give one path", async () => {
    const file = join(dir, "a.txt")
    await writeFile(file, "x")
    await symlink(file, join(dir, "link.txt"))
    expect(await canonicalPath(file)).toBe(file)
    expect(await canonicalPath(join(dir, "link.txt"))).toBe(file)
    expect(await canonicalPath(join(dir, "sub", "..", "a.txt"))).toBe(file)
  })

  test("a missing file under a symlinked directory resolves through the link", async () => {
    await mkdir(join(dir, "real"))
    await symlink(join(dir, "real"), join(dir, "alias"))
    expect(await canonicalPath(join(dir, "alias", "new", "file.ts"))).toBe(
      join(dir, "real", "new", "file.ts"),
    )
  })

  test("a dangling symlink resolves to the file a write would create", async () => {
    await symlink("target.txt", join(dir, "dangling"))
    expect(await canonicalPath(join(dir, "dangling"))).toBe(join(dir, "target.txt"))
  })

  test("a symlink loop does not hang", async () => {
    await symlink(join(dir, "b"), join(dir, "a"))
    await symlink(join(dir, "a"), join(dir, "b"))
    expect(await canonicalPath(join(dir, "a"))).toMatch(/[ab]$/)
  })
})

describe("withFileLock", () => {
  test("50 parallel read-modify-write appends to one file all survive", async () => {
    const file = join(dir, "log.txt")
    await writeFile(file, "")
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        withFileLock(file, async () => {
          const before = await readFile(file, "utf8")
          await tick()
          await writeFileAtomic(file, `${before}${i}\n`)
        }),
      ),
    )
    const lines = (await readFile(file, "utf8")).trim().split("\n").map(Number)
    expect(lines).toHaveLength(50)
    expect(new Set(lines).size).toBe(50)
    expect(lockedFileCount()).toBe(0)
  })

  test("without the lock the same appends lose updates (the test can see a race)", async () => {
    const file = join(dir, "log.txt")
    await writeFile(file, "")
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const before = await readFile(file, "utf8")
        await tick()
        await writeFileAtomic(file, `${before}${i}\n`)
      }),
    )
    const lines = (await readFile(file, "utf8")).trim().split("\n")
    expect(lines.length).toBeLessThan(20)
  })

  test("waiters run in the order they asked, and one at a time", async () => {
    const file = join(dir, "f")
    const order: number[] = []
    let running = 0
    let maxRunning = 0
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        withFileLock(file, async () => {
          running++
          maxRunning = Math.max(maxRunning, running)
          order.push(i)
          await tick()
          running--
        }),
      ),
    )
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(maxRunning).toBe(1)
  })

  test("a symlink and its target share one lock; different files do not", async () => {
    const file = join(dir, "target.txt")
    await writeFile(file, "")
    await symlink(file, join(dir, "link.txt"))
    const events: string[] = []
    let release!: () => void
    const holder = withFileLock(join(dir, "link.txt"), async (canonical) => {
      expect(canonical).toBe(file)
      events.push("link start")
      await new Promise<void>((resolve) => {
        release = resolve
      })
      events.push("link end")
    })
    const other = withFileLock(join(dir, "other.txt"), () => events.push("other"))
    const same = withFileLock(file, () => events.push("target"))
    await other
    expect(events).toEqual(["link start", "other"])
    release()
    await Promise.all([holder, same])
    expect(events).toEqual(["link start", "other", "link end", "target"])
  })

  test("the lock is released when fn throws", async () => {
    const file = join(dir, "f")
    await expect(
      withFileLock(file, () => {
        throw new Error("boom")
      }),
    ).rejects.toThrow("boom")
    await expect(withFileLock(file, async () => "next")).resolves.toBe("next")
    expect(lockedFileCount()).toBe(0)
  })

  test("aborting a waiter cancels its wait only; the holder finishes and the next waiter runs", async () => {
    const file = join(dir, "f")
    const events: string[] = []
    let release!: () => void
    const holder = withFileLock(file, async () => {
      await new Promise<void>((resolve) => {
        release = resolve
      })
      events.push("holder done")
    })
    const controller = new AbortController()
    const aborted = withFileLock(file, () => events.push("aborted ran"), { signal: controller.signal })
    const next = withFileLock(file, () => events.push("next ran"))
    await tick()
    controller.abort(new Error("user pressed Esc"))
    await expect(aborted).rejects.toThrow("user pressed Esc")
    release()
    await Promise.all([holder, next])
    expect(events).toEqual(["holder done", "next ran"])
    expect(lockedFileCount()).toBe(0)
  })

  test("an already aborted signal rejects without taking the lock", async () => {
    let ran = false
    await expect(
      withFileLock(join(dir, "f"), () => (ran = true), { signal: AbortSignal.abort() }),
    ).rejects.toThrow()
    expect(ran).toBe(false)
    expect(lockedFileCount()).toBe(0)
  })

  test("asking again for a lock the call already holds throws instead of deadlocking", async () => {
    const file = join(dir, "f")
    await expect(withFileLock(file, () => withFileLock(file, () => "inner"))).rejects.toThrow(/already held/)
    // Another file inside the lock is fine.
    await expect(withFileLock(file, () => withFileLock(join(dir, "g"), () => "ok"))).resolves.toBe("ok")
    expect(lockedFileCount()).toBe(0)
  })

  test("work started inside a lock but run after its release may take the lock", async () => {
    const file = join(dir, "f")
    let later!: Promise<string>
    await withFileLock(file, () => {
      later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => withFileLock(file, () => "later"))
    })
    await expect(later).resolves.toBe("later")
  })
})

describe("withFileLocks", () => {
  test("two writers locking the same files in opposite orders never deadlock", async () => {
    const a = join(dir, "a")
    const b = join(dir, "b")
    const c = join(dir, "c")
    const runs: string[] = []
    const jobs = Array.from({ length: 20 }, (_, i) => {
      const paths = i % 2 === 0 ? [a, b, c] : [c, b, a]
      return withFileLocks(paths, async (keys) => {
        expect(keys).toEqual([a, b, c])
        runs.push(`start ${i}`)
        await tick()
        runs.push(`end ${i}`)
      })
    })
    await Promise.all(jobs)
    // Serialised: every start is directly followed by its own end.
    for (let i = 0; i < runs.length; i += 2) expect(runs[i + 1]).toBe(runs[i]!.replace("start", "end"))
    expect(lockedFileCount()).toBe(0)
  })

  test("duplicates and aliases are locked once", async () => {
    const file = join(dir, "a")
    await writeFile(file, "")
    await symlink(file, join(dir, "alias"))
    await expect(withFileLocks([file, join(dir, "alias"), file], (keys) => keys)).resolves.toEqual([file])
  })

  test("overlaps with single-file locks: the multi-lock waits for each file", async () => {
    const a = join(dir, "a")
    const b = join(dir, "b")
    const events: string[] = []
    let release!: () => void
    const holdB = withFileLock(b, async () => {
      await new Promise<void>((resolve) => {
        release = resolve
      })
      events.push("b released")
    })
    const both = withFileLocks([a, b], () => events.push("both"))
    await tick()
    // `a` is taken by the waiting multi-lock, so a single lock of `a` waits behind it.
    const onlyA = withFileLock(a, () => events.push("a alone"))
    await tick()
    expect(events).toEqual([])
    release()
    await Promise.all([holdB, both, onlyA])
    expect(events).toEqual(["b released", "both", "a alone"])
  })

  test("an abort while waiting for a later lock releases the earlier ones", async () => {
    const a = join(dir, "a")
    const b = join(dir, "b")
    let release!: () => void
    const holdB = withFileLock(b, () => new Promise<void>((resolve) => (release = resolve)))
    const controller = new AbortController()
    const both = withFileLocks([a, b], () => "ran", { signal: controller.signal })
    await tick()
    controller.abort()
    await expect(both).rejects.toThrow()
    // `a` is free again at once, while `b` is still held.
    await expect(withFileLock(a, () => "a free")).resolves.toBe("a free")
    release()
    await holdB
    expect(lockedFileCount()).toBe(0)
  })
})
