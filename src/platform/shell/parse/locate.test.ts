import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { contains, externalDirectory, isHarmlessDevice, locate, realRoot } from "./locate.ts"

let root: string
let project: string
let outside: string

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-locate-")))
  project = join(root, "project")
  outside = join(root, "outside")
  await mkdir(join(project, "src"), { recursive: true })
  await mkdir(outside)
  await writeFile(join(project, "src", "a.ts"), "")
  await writeFile(join(outside, "file.txt"), "")
  await writeFile(join(root, "secret.txt"), "")
  await symlink(outside, join(project, "link"))
  await symlink(join(outside, "file.txt"), join(project, "flink"))
  await symlink(join(outside, "new.txt"), join(project, "dangling"))
  await symlink("../outside/file.txt", join(project, "relative-link"))
  await symlink(join(project, "loop"), join(project, "loop"))
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

describe("locate", () => {
  it("finds existing files and directories", async () => {
    expect(locate(join(project, "src", "a.ts"))).toEqual({
      real: join(project, "src", "a.ts"),
      exists: true,
      isDirectory: false,
    })
    expect(locate(join(project, "src"))).toMatchObject({ exists: true, isDirectory: true })
  })

  it("follows symlinks", async () => {
    expect(locate(join(project, "link", "file.txt")).real).toBe(join(outside, "file.txt"))
    expect(locate(join(project, "flink")).real).toBe(join(outside, "file.txt"))
    expect(locate(join(project, "relative-link")).real).toBe(join(outside, "file.txt"))
  })

  it("locates a missing path through its nearest existing ancestor", async () => {
    expect(locate(join(project, "link", "new", "deep.txt"))).toEqual({
      real: join(outside, "new", "deep.txt"),
      exists: false,
      isDirectory: false,
    })
  })

  it("follows a dangling symlink to where a write would land", async () => {
    expect(locate(join(project, "dangling")).real).toBe(join(outside, "new.txt"))
  })

  it("applies .. after following symlinks, as the kernel does", async () => {
    expect(locate(`${project}/link/../secret.txt`).real).toBe(join(root, "secret.txt"))
    expect(locate(`${project}/missing/../src/a.ts`).real).toBe(join(project, "src", "a.ts"))
  })

  it("gives up on symlink loops without throwing", async () => {
    expect(locate(join(project, "loop", "x")).exists).toBe(false)
  })

  it("handles the root and trailing slashes", async () => {
    expect(locate("/").real).toBe("/")
    expect(locate(`${outside}/`).real).toBe(outside)
  })
})

describe("externalDirectory", () => {
  it("is undefined inside a root", async () => {
    expect(externalDirectory(join(project, "src", "a.ts"), "file", [project])).toBeUndefined()
    expect(externalDirectory(join(project, "new", "x"), "auto", [project])).toBeUndefined()
  })

  it("gives the parent of a file and the directory itself for a directory", async () => {
    expect(externalDirectory(join(outside, "file.txt"), "auto", [project])).toBe(outside)
    expect(externalDirectory(outside, "auto", [project])).toBe(outside)
    expect(externalDirectory(join(outside, "new-dir"), "dir", [project])).toBe(join(outside, "new-dir"))
    expect(externalDirectory(join(outside, "new-file"), "auto", [project])).toBe(outside)
    expect(externalDirectory(outside, "file", [project])).toBe(root)
  })

  it("treats a symlink inside the project that points outside as outside", async () => {
    expect(externalDirectory(join(project, "link", "x.txt"), "file", [project])).toBe(outside)
    expect(externalDirectory(join(project, "flink"), "file", [project])).toBe(outside)
    expect(externalDirectory(join(project, "dangling"), "file", [project])).toBe(outside)
  })

  it("treats a path reaching the project through a symlink as inside", async () => {
    const alias = join(outside, "alias")
    await symlink(project, alias)
    expect(externalDirectory(join(alias, "src", "a.ts"), "file", [project])).toBeUndefined()
  })

  it("accepts any of several roots", async () => {
    expect(externalDirectory(join(outside, "file.txt"), "file", [project, outside])).toBeUndefined()
  })
})

describe("helpers", () => {
  it.each([
    ["/a", "/a", true],
    ["/a", "/a/b", true],
    ["/a", "/ab", false],
    ["/a", "/", false],
    ["/a/b", "/a", false],
    ["/", "/x", true],
  ])("contains(%s, %s) is %s", (rootPath, path, expected) => {
    expect(contains(rootPath, path)).toBe(expected)
  })

  it("caches real roots", async () => {
    const first = realRoot(project)
    expect(realRoot(project)).toBe(first)
    expect(first).toBe(project)
  })

  it.each([
    ["/dev/null", true],
    ["/dev/stdout", true],
    ["/dev/stderr", true],
    ["/dev/fd/3", true],
    ["/dev/urandom", true],
    ["/dev/sda", false],
    ["/dev", false],
    ["/tmp/null", false],
  ])("isHarmlessDevice(%s) is %s", (path, expected) => {
    expect(isHarmlessDevice(path)).toBe(expected)
  })
})
