import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { canonicalPath, canonicalPathSync } from "./canonical-path.ts"

let root: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-canonical-")))
  await mkdir(join(root, "real", "sub"), { recursive: true })
  await writeFile(join(root, "real", "file.txt"), "x")
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const at = (...parts: string[]) => join(root, ...parts)

describe("canonicalPath: where a write to the path lands", () => {
  const cases: [string, () => Promise<void>, string, string][] = [
    ["an existing file", async () => {}, "real/file.txt", "real/file.txt"],
    ["a missing file in an existing directory", async () => {}, "real/new.txt", "real/new.txt"],
    ["missing directories", async () => {}, "real/a/b/c.txt", "real/a/b/c.txt"],
    ["a link to a file", () => symlink(at("real", "file.txt"), at("l")), "l", "real/file.txt"],
    ["a dangling link, absolute", () => symlink(at("real", "gone.txt"), at("l")), "l", "real/gone.txt"],
    ["a dangling link, relative", () => symlink("real/sub/gone.txt", at("l")), "l", "real/sub/gone.txt"],
    [
      "a dangling link to a missing directory, with names under it",
      () => symlink(at("real", "x", "y"), at("l")),
      "l/m/n.txt",
      "real/x/y/m/n.txt",
    ],
    [
      "a chain of links, the last dangling",
      async () => {
        await symlink("real/sub/end.txt", at("c"))
        await symlink("c", at("b"))
        await symlink(at("b"), at("a"))
      },
      "a",
      "real/sub/end.txt",
    ],
    [
      "`..` after a link to a directory steps up from the link's target",
      async () => {
        await symlink(at("real", "sub"), at("s"))
        await symlink("s/../new.txt", at("l"))
      },
      "l",
      "real/new.txt",
    ],
    [
      "a relative link inside a linked directory resolves from the real directory",
      async () => {
        await symlink(at("real", "sub"), at("s"))
        await symlink("../gone.txt", at("real", "sub", "up"))
      },
      "s/up",
      "real/gone.txt",
    ],
  ]
  for (const [name, setup, path, expected] of cases) {
    it(name, async () => {
      await setup()
      expect(await canonicalPath(at(path))).toBe(at(expected))
      expect(canonicalPathSync(at(path))).toBe(at(expected))
    })
  }

  it("a loop ends without throwing", async () => {
    await symlink("b", at("a"))
    await symlink("a", at("b"))
    expect(await canonicalPath(at("a", "x"))).toBe(at("a", "x"))
  })

  it("a relative path is resolved against the working directory", async () => {
    expect(await canonicalPath(".")).toBe(await realpath(process.cwd()))
  })
})
