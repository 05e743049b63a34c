import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { describeWriteError, FileSystemError, isAbortError } from "./errors.ts"

let dir: string

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-errors-")))
  await writeFile(join(dir, "file.txt"), "x")
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const systemError = (code: string) => Object.assign(new Error(`${code}: something`), { code })

describe("describeWriteError", () => {
  // Errors that are hard to provoke for real (a full disk, a read-only mount) are checked by their code.
  test.each([
    ["ENOSPC", "the disk is full (no space left on the device). Free up space, then try again."],
    ["EDQUOT", "the disk quota is exhausted. Free up space, then try again."],
    ["EROFS", "the file system is read-only. Write somewhere else."],
    ["ENAMETOOLONG", "the file name is too long. Use a shorter name."],
    ["ELOOP", "too many levels of symbolic links (a symlink loop?). Check the links on the path (ls -l)."],
    ["EMFILE", "too many open files right now. Try again in a moment."],
    ["EISDIR", "it is a directory, not a file. Give the path of a file."],
    ["EIO", "EIO: something"],
  ])("%s", (code, reason) => {
    const described = describeWriteError(systemError(code), "/p/out.txt", dir)
    expect(described).toBeInstanceOf(FileSystemError)
    expect((described as FileSystemError).message).toBe(`Cannot write /p/out.txt: ${reason}`)
    expect((described as FileSystemError).code).toBe(code)
    expect((described as FileSystemError).cause).toBeInstanceOf(Error)
  })

  test("permission denied names the directory, or the ancestor that blocks creating it", () => {
    expect((describeWriteError(systemError("EACCES"), "/p", dir) as Error).message).toContain(
      `the directory ${dir} is not writable`,
    )
    const missing = join(dir, "a", "b")
    expect((describeWriteError(systemError("EPERM"), "/p", missing) as Error).message).toContain(
      `cannot create the directory ${missing} because ${dir} is not writable`,
    )
  })

  test("a file in the way of a directory is named", () => {
    const under = join(dir, "file.txt", "sub")
    expect((describeWriteError(systemError("ENOTDIR"), "/p", under) as Error).message).toBe(
      `Cannot write /p: ${join(dir, "file.txt")} is a file, not a directory, so nothing can be created under it. Move or rename it, or write somewhere else.`,
    )
  })

  test("aborts and already described errors pass through untouched", () => {
    const abort = new DOMException("This operation was aborted", "AbortError")
    expect(isAbortError(abort)).toBe(true)
    expect(describeWriteError(abort, "/p", dir)).toBe(abort)
    const described = new FileSystemError("Cannot write /p: reason", { path: "/p" })
    expect(describeWriteError(described, "/p", dir)).toBe(described)
  })
})
