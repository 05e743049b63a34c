import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, afterEach, beforeEach, describe, expect, test } from "vitest"
import { NOBODY, openOtherAccount } from "../../../test/fixtures/other-account.ts"
import { renameAtomic, writeFileAtomic } from "./atomic-write.ts"
import { FileSystemError } from "./errors.ts"

const isRoot = process.getuid?.() === 0
/** As root, permission bits stop only another account: the permission tests write as `nobody`. */
const nobody = isRoot ? await openOtherAccount(NOBODY) : undefined
const nobodyCannot = nobody !== undefined && "skip" in nobody ? nobody.skip : undefined
if (nobodyCannot !== undefined) {
  console.warn(`atomic-write.test.ts: skipping the permission-denied tests: ${nobodyCannot}.`)
}
afterAll(async () => {
  if (nobody !== undefined && !("skip" in nobody)) await nobody.close()
})
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

let dir: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-write-")))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777
const entries = async (path: string) => (await readdir(path)).sort()

describe("writeFileAtomic: content and metadata", () => {
  test("writes the bytes as given: BOM, CRLF and binary data untouched", async () => {
    const text = "\uFEFFline one\r\nline two\r\n"
    await writeFileAtomic(join(dir, "bom.txt"), text)
    expect(await readFile(join(dir, "bom.txt"))).toEqual(Buffer.from(text, "utf8"))

    const binary = Uint8Array.from([0, 1, 2, 0xff, 0xfe, 0x0d, 0x0a, 0])
    await writeFileAtomic(join(dir, "data.bin"), binary)
    expect(new Uint8Array(await readFile(join(dir, "data.bin")))).toEqual(binary)

    await writeFileAtomic(join(dir, "empty.txt"), "")
    expect(await readFile(join(dir, "empty.txt"), "utf8")).toBe("")
  })

  test("replaces an existing file and leaves no temp file behind", async () => {
    const file = join(dir, "a.txt")
    await writeFile(file, "old content that is longer")
    await writeFileAtomic(file, "new")
    expect(await readFile(file, "utf8")).toBe("new")
    expect(await entries(dir)).toEqual(["a.txt"])
  })

  test("creates missing parent directories", async () => {
    const file = join(dir, "a", "b", "c", "file.ts")
    await writeFileAtomic(file, "x")
    expect(await readFile(file, "utf8")).toBe("x")
  })

  test("a new file gets 0o644 minus the umask", async () => {
    await writeFileAtomic(join(dir, "new.txt"), "x")
    expect(await modeOf(join(dir, "new.txt"))).toBe(0o644 & ~process.umask())
  })

  test.each([0o600, 0o755, 0o640, 0o4755])("keeps the existing mode %o", async (mode) => {
    const file = join(dir, "f")
    await writeFile(file, "old")
    await chmod(file, mode)
    await writeFileAtomic(file, "new")
    expect(await modeOf(file)).toBe(mode)
  })

  test("an explicit mode wins, for new and existing files", async () => {
    await writeFileAtomic(join(dir, "new.sh"), "#!/bin/sh\n", { mode: 0o750 })
    expect(await modeOf(join(dir, "new.sh"))).toBe(0o750)
    const file = join(dir, "old.txt")
    await writeFile(file, "x", { mode: 0o644 })
    await writeFileAtomic(file, "y", { mode: 0o600 })
    expect(await modeOf(file)).toBe(0o600)
  })

  test.skipIf(!isRoot)("as root, keeps the existing owner and group", async () => {
    const file = join(dir, "owned.txt")
    await writeFile(file, "old")
    await chown(file, NOBODY, NOBODY)
    await writeFileAtomic(file, "new")
    const stats = await stat(file)
    expect([stats.uid, stats.gid]).toEqual([NOBODY, NOBODY])
  })
})

describe("writeFileAtomic: symlinks", () => {
  test("writes through a symlink to its target and keeps the link", async () => {
    await mkdir(join(dir, "real"))
    const target = join(dir, "real", "config.json")
    await writeFile(target, "{}")
    await chmod(target, 0o600)
    await symlink("real/config.json", join(dir, "config.json"))

    await writeFileAtomic(join(dir, "config.json"), '{"a":1}')

    expect((await lstat(join(dir, "config.json"))).isSymbolicLink()).toBe(true)
    expect(await readlink(join(dir, "config.json"))).toBe("real/config.json")
    expect(await readFile(target, "utf8")).toBe('{"a":1}')
    expect(await modeOf(target)).toBe(0o600)
    expect(await entries(join(dir, "real"))).toEqual(["config.json"])
  })

  test("a chain of symlinks and a symlinked directory lead to the one real file", async () => {
    await mkdir(join(dir, "real"))
    await symlink(join(dir, "real"), join(dir, "alias"))
    await writeFile(join(dir, "real", "f.txt"), "old")
    await symlink(join(dir, "alias", "f.txt"), join(dir, "link1"))
    await symlink("link1", join(dir, "link2"))
    await writeFileAtomic(join(dir, "link2"), "new")
    expect(await readFile(join(dir, "real", "f.txt"), "utf8")).toBe("new")
    expect((await lstat(join(dir, "link2"))).isSymbolicLink()).toBe(true)
    expect((await lstat(join(dir, "link1"))).isSymbolicLink()).toBe(true)
  })

  test("a dangling symlink: the target is created, the link kept", async () => {
    await symlink("made/by/write.txt", join(dir, "dangling"))
    await writeFileAtomic(join(dir, "dangling"), "hello")
    expect(await readFile(join(dir, "made", "by", "write.txt"), "utf8")).toBe("hello")
    expect((await lstat(join(dir, "dangling"))).isSymbolicLink()).toBe(true)
  })
})

describe("writeFileAtomic: failures", () => {
  test("a directory as target: says so, touches nothing", async () => {
    await mkdir(join(dir, "folder"))
    const error = await writeFileAtomic(join(dir, "folder"), "x").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FileSystemError)
    expect((error as FileSystemError).code).toBe("EISDIR")
    expect((error as Error).message).toBe(
      `Cannot write ${join(dir, "folder")}: it is a directory, not a file. Give the path of a file.`,
    )
    expect(await entries(join(dir, "folder"))).toEqual([])
  })

  test("a path under a regular file: names the file that is in the way", async () => {
    await writeFile(join(dir, "notes.txt"), "x")
    const path = join(dir, "notes.txt", "sub", "file.ts")
    const error = await writeFileAtomic(path, "x").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FileSystemError)
    expect((error as Error).message).toBe(
      `Cannot write ${path}: ${join(dir, "notes.txt")} is a file, not a directory, so nothing can be created under it. Move or rename it, or write somewhere else.`,
    )
  })

  const hasMkfifo = spawnSync("mkfifo", ["--version"]).status === 0
  test.skipIf(!hasMkfifo)("a FIFO (or device) is not replaced by a regular file", async () => {
    const fifo = join(dir, "pipe")
    spawnSync("mkfifo", [fifo])
    await expect(writeFileAtomic(fifo, "x")).rejects.toThrow(
      `Cannot write ${fifo}: it is not a regular file (a device, FIFO or socket), so it is not replaced. Give the path of a regular file.`,
    )
    expect((await lstat(fifo)).isFIFO()).toBe(true)
  })

  test("a failure after the temp file exists removes it and leaves the target as it was", async () => {
    const file = join(dir, "keep.txt")
    await writeFile(file, "original")
    // An invalid mode fails at chmod, after the temp file was created.
    const error = await writeFileAtomic(file, "new", { mode: -1 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FileSystemError)
    expect((error as Error).message).toMatch(/^Cannot write .*keep\.txt: /)
    expect(await readFile(file, "utf8")).toBe("original")
    expect(await entries(dir)).toEqual(["keep.txt"])
  })

  test("an abort during the write rejects, removes the temp file and keeps the target", async () => {
    const file = join(dir, "keep.txt")
    await writeFile(file, "original")
    const controller = new AbortController()
    const big = Buffer.alloc(64 * 1024 * 1024, 0x61)
    const writing = writeFileAtomic(file, big, { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    await expect(writing).rejects.toMatchObject({ name: "AbortError" })
    expect(await readFile(file, "utf8")).toBe("original")
    expect(await entries(dir)).toEqual(["keep.txt"])
  })

  test("an already aborted signal writes nothing", async () => {
    await expect(writeFileAtomic(join(dir, "x"), "x", { signal: AbortSignal.abort() })).rejects.toThrow()
    expect(await entries(dir)).toEqual([])
  })

  // Root ignores permission bits, so as root the write runs as `nobody` in a child process.
  test.skipIf(nobodyCannot)("permission denied: names the directory that is not writable", async () => {
    const locked = join(dir, "locked")
    await mkdir(locked, { mode: 0o755 })
    const outcome = await writeAs(join(locked, "file.txt"), "x", () => chmod(locked, 0o555))
    expect(outcome).toEqual({
      ok: false,
      code: "EACCES",
      message: `Cannot write ${join(locked, "file.txt")}: permission denied: the directory ${locked} is not writable (or the file is protected). Fix the permissions, or write somewhere else.`,
    })
    expect(await entries(locked)).toEqual([])
  })

  test.skipIf(nobodyCannot)("permission denied: a missing directory under an unwritable one", async () => {
    const locked = join(dir, "locked")
    await mkdir(locked, { mode: 0o755 })
    const path = join(locked, "new", "file.txt")
    const outcome = await writeAs(path, "x", () => chmod(locked, 0o555))
    expect(outcome.ok).toBe(false)
    expect(outcome.message).toBe(
      `Cannot write ${path}: permission denied: cannot create the directory ${join(locked, "new")} because ${locked} is not writable. Fix the permissions, or write somewhere else.`,
    )
  })

  test.skipIf(nobodyCannot)("a read-only file is not replaced behind the user's back", async () => {
    const open = join(dir, "open")
    await mkdir(open, { mode: 0o777 })
    const file = join(open, "readonly.txt")
    await writeFile(file, "protected")
    await chmod(file, 0o444)
    const outcome = await writeAs(file, "x", async () => {
      if (isRoot) await chown(file, NOBODY, NOBODY)
    })
    expect(outcome).toEqual({
      ok: false,
      code: "EACCES",
      message: `Cannot write ${file}: permission denied: the file ${file} is read-only. Make it writable first (chmod u+w), if that is intended.`,
    })
    expect(await readFile(file, "utf8")).toBe("protected")
  })
})

describe("writeFileAtomic: crash safety", () => {
  test("a writer SIGKILLed at random moments leaves exactly A or exactly B, never a mix", async () => {
    const target = join(dir, "big.txt")
    let leftovers = 0
    for (let round = 0; round < 8; round++) {
      const child = spawn(process.execPath, [fixture("atomic-writer.ts"), target, "4"], {
        stdio: ["ignore", "pipe", "inherit"],
      })
      const output = lines(child)
      const [hashA, hashB] = (await output.next((line) => line.startsWith("hashes "))).split(" ").slice(1)
      await output.next((line) => line.startsWith("wrote "))
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 150))
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGKILL")
      await exited
      const hash = createHash("sha256")
        .update(await readFile(target))
        .digest("hex")
      expect([hashA, hashB]).toContain(hash)
      // A kill during a write leaves its temp file: proof the kills landed mid-write.
      const temps = (await readdir(dir)).filter((name) => name.endsWith(".tmp"))
      leftovers += temps.length
      for (const name of temps) await rm(join(dir, name))
    }
    expect(leftovers).toBeGreaterThan(0)
  }, 60_000)
})

describe("renameAtomic", () => {
  test("moves a file, replacing the destination and creating its parents", async () => {
    await writeFile(join(dir, "from.txt"), "moved")
    await writeFile(join(dir, "old.txt"), "replaced")
    await renameAtomic(join(dir, "from.txt"), join(dir, "old.txt"))
    expect(await readFile(join(dir, "old.txt"), "utf8")).toBe("moved")
    await renameAtomic(join(dir, "old.txt"), join(dir, "x", "y", "to.txt"))
    expect(await readFile(join(dir, "x", "y", "to.txt"), "utf8")).toBe("moved")
    expect(await entries(dir)).toEqual(["x"])
  })

  test("a missing source says which file is missing", async () => {
    await expect(renameAtomic(join(dir, "nope.txt"), join(dir, "to.txt"))).rejects.toThrow(
      `Cannot write ${join(dir, "to.txt")}: the file to move, ${join(dir, "nope.txt")}, does not exist. Check the path.`,
    )
  })

  test("a directory as destination is refused", async () => {
    await writeFile(join(dir, "from.txt"), "x")
    await mkdir(join(dir, "folder"))
    await expect(renameAtomic(join(dir, "from.txt"), join(dir, "folder"))).rejects.toThrow(
      /it is a directory/,
    )
    expect(await readFile(join(dir, "from.txt"), "utf8")).toBe("x")
  })

  const shm = "/dev/shm"
  const crossDevice = spawnSync("stat", ["-c", "%d", shm, tmpdir()], { encoding: "utf8" })
  const devices = crossDevice.stdout?.trim().split("\n") ?? []
  test.skipIf(devices.length !== 2 || devices[0] === devices[1])(
    "across file systems: copies (content, mode, times), then removes the source",
    async () => {
      const other = await mkdtemp(join(shm, "toolbelt-move-"))
      try {
        const from = join(other, "from.sh")
        await writeFile(from, "#!/bin/sh\necho moved\n")
        await chmod(from, 0o751)
        await utimes(from, new Date("2020-01-02T03:04:05Z"), new Date("2021-02-03T04:05:06Z"))
        const to = join(dir, "to.sh")
        await renameAtomic(from, to)
        expect(await readFile(to, "utf8")).toBe("#!/bin/sh\necho moved\n")
        expect(await modeOf(to)).toBe(0o751)
        expect((await stat(to)).mtime.toISOString()).toBe("2021-02-03T04:05:06.000Z")
        expect(await readdir(other)).toEqual([])
        expect(await entries(dir)).toEqual(["to.sh"])
      } finally {
        await rm(other, { recursive: true, force: true })
      }
    },
  )
})

interface WriteOutcome {
  ok: boolean
  message?: string
  code?: string
}

/**
 * Runs one write as a user that permission bits apply to. As root (where chmod does not stop writes), the
 * write runs in a child process as `nobody`, from a bundle of write-once.ts outside the checkout (which
 * `nobody` may not be able to enter); otherwise in this process. `prepare` locks things down first.
 */
async function writeAs(path: string, text: string, prepare: () => Promise<unknown>): Promise<WriteOutcome> {
  await prepare()
  if (nobody === undefined) {
    try {
      await writeFileAtomic(path, text)
      return { ok: true }
    } catch (error) {
      return { ok: false, message: (error as Error).message, code: (error as FileSystemError).code! }
    }
  }
  if ("skip" in nobody) throw new Error(nobody.skip)
  await chmod(dir, 0o755) // let `nobody` reach the test directory
  const result = nobody.node([await nobody.bundle(fixture("write-once.ts")), path, text])
  if (result.status !== 0) throw new Error(`write-once.ts as nobody failed: ${result.stderr}`)
  return JSON.parse(result.stdout) as WriteOutcome
}

/** Reads a child's stdout line by line; `next(match)` waits for the next line that matches. */
function lines(child: ChildProcess): { next(match: (line: string) => boolean): Promise<string> } {
  let buffered = ""
  const queue: string[] = []
  let wake: (() => void) | undefined
  child.stdout!.setEncoding("utf8")
  child.stdout!.on("data", (data: string) => {
    buffered += data
    const parts = buffered.split("\n")
    buffered = parts.pop()!
    queue.push(...parts)
    wake?.()
  })
  return {
    async next(match) {
      for (;;) {
        const line = queue.shift()
        if (line !== undefined) {
          if (match(line)) return line
          continue
        }
        if (child.exitCode !== null) throw new Error("the writer exited early")
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    },
  }
}
