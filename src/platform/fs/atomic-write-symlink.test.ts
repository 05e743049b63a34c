// writeFileAtomic and symlinks: it writes where the path resolves, and refuses when that is no longer
// where the caller's permission check saw it land.

import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { assertLandsOn, writeFileAtomic } from "./atomic-write.ts"
import { canonicalPath } from "./canonical-path.ts"
import { FileSystemError } from "./errors.ts"

let root: string
let inside: string
let outside: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-atomic-link-")))
  inside = join(root, "inside")
  outside = join(root, "outside")
  await mkdir(inside)
  await mkdir(outside)
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe("writeFileAtomic through symlinks", () => {
  it("creates the target of a dangling link, keeping the link", async () => {
    await symlink("target.txt", join(inside, "link"))
    await writeFileAtomic(join(inside, "link"), "x")
    expect(await readFile(join(inside, "target.txt"), "utf8")).toBe("x")
    expect(await readlink(join(inside, "link"))).toBe("target.txt")
  })

  it("refuses when the path resolves elsewhere than `expected`, writing nothing anywhere", async () => {
    const path = join(inside, "new.txt")
    const expected = await canonicalPath(path)
    await symlink(join(outside, "planted"), path)
    const error = await writeFileAtomic(path, "x", { expected }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(FileSystemError)
    expect((error as Error).message).toMatch(
      new RegExp(`now resolves to ${join(outside, "planted")}, not to ${expected}.*Nothing was written`),
    )
    expect(await readdir(outside)).toEqual([])
    expect(await readdir(inside)).toEqual(["new.txt"])
    expect((await lstat(path)).isSymbolicLink()).toBe(true)
  })

  it("refuses when a directory on the way became a link, before creating anything under it", async () => {
    const path = join(inside, "dir", "deep", "new.txt")
    const expected = await canonicalPath(path)
    await symlink(join(outside, "away"), join(inside, "dir"))
    await expect(writeFileAtomic(path, "x", { expected })).rejects.toThrow(/symlink in the path/)
    expect(await readdir(outside)).toEqual([])
  })

  it("writes when the path still lands on `expected`", async () => {
    await writeFile(join(inside, "real.txt"), "old")
    await symlink("real.txt", join(inside, "alias"))
    await writeFileAtomic(join(inside, "alias"), "new", { expected: join(inside, "real.txt") })
    expect(await readFile(join(inside, "real.txt"), "utf8")).toBe("new")
  })

  it("assertLandsOn accepts the unchanged path and names both paths when it moved", async () => {
    const path = join(inside, "f")
    expect(() => assertLandsOn(path, path)).not.toThrow()
    await symlink(join(outside, "f"), path)
    expect(() => assertLandsOn(path, path)).toThrow(
      `it now resolves to ${join(outside, "f")}, not to ${path}`,
    )
  })
})
