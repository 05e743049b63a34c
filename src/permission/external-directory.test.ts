import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { AskInput, Context } from "../tool/context.ts"
import { PermissionRejectedError } from "./errors.ts"
import { assertExternalDirectory, contains, realPath } from "./external-directory.ts"

let root: string
let project: string
let outside: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-external-")))
  project = join(root, "project")
  outside = join(root, "outside")
  await mkdir(join(project, "src"), { recursive: true })
  await mkdir(join(outside, "deep"), { recursive: true })
  await writeFile(join(project, "src", "a.ts"), "a")
  await writeFile(join(outside, "secret.txt"), "s")
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

function context(extra: Record<string, unknown> = {}, ask?: (input: AskInput) => Promise<void>) {
  const asks: AskInput[] = []
  const ctx: Context = {
    sessionID: "ses_1",
    messageID: "msg_1",
    agent: "build",
    callID: "call_1",
    abort: new AbortController().signal,
    extra: { directory: project, ...extra },
    messages: [],
    metadata: () => {},
    ask: async (input) => {
      asks.push(input)
      await ask?.(input)
    },
  }
  return { ctx, asks }
}

describe("assertExternalDirectory", () => {
  it("does nothing without a target, or with bypass", async () => {
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, undefined)).toBe(false)
    expect(await assertExternalDirectory(ctx, "")).toBe(false)
    expect(await assertExternalDirectory(ctx, "/etc/passwd", { bypass: true })).toBe(false)
    expect(asks).toEqual([])
  })

  it("does not ask inside the project", async () => {
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, "src/a.ts")).toBe(false)
    expect(await assertExternalDirectory(ctx, join(project, "src", "a.ts"))).toBe(false)
    expect(await assertExternalDirectory(ctx, join(project, "new", "dir", "file.ts"))).toBe(false)
    expect(await assertExternalDirectory(ctx, project, { kind: "directory" })).toBe(false)
    expect(await assertExternalDirectory(ctx, ".")).toBe(false)
    expect(asks).toEqual([])
  })

  it("asks for the parent directory of a file outside, with one canonical glob", async () => {
    const { ctx, asks } = context()
    const target = join(outside, "secret.txt")
    expect(await assertExternalDirectory(ctx, target)).toBe(true)
    expect(asks).toEqual([
      {
        permission: "external_directory",
        patterns: [join(outside, "*")],
        always: [join(outside, "*")],
        metadata: { filepath: target, parentDir: outside },
      },
    ])
  })

  it("asks for the directory itself with kind directory", async () => {
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, join(outside, "deep"), { kind: "directory" })).toBe(true)
    expect(asks[0]!.patterns).toEqual([join(outside, "deep", "*")])
    expect(asks[0]!.metadata).toEqual({ filepath: join(outside, "deep"), parentDir: join(outside, "deep") })
  })

  it("sees `..` escapes", async () => {
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, "../outside/secret.txt")).toBe(true)
    expect(asks[0]!.patterns).toEqual([join(outside, "*")])
  })

  it("a symlink inside the project that points outside is outside", async () => {
    await symlink(outside, join(project, "link"))
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, "link/secret.txt")).toBe(true)
    expect(asks[0]!.patterns).toEqual([join(outside, "*")])
    expect(asks[0]!.metadata).toEqual({ filepath: join(outside, "secret.txt"), parentDir: outside })
  })

  it("a file symlink inside the project that points outside is outside", async () => {
    await symlink(join(outside, "secret.txt"), join(project, "innocent.txt"))
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, "innocent.txt")).toBe(true)
    expect(asks[0]!.patterns).toEqual([join(outside, "*")])
  })

  it("a file not created yet below a symlink that points outside is outside", async () => {
    await symlink(outside, join(project, "link"))
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, "link/new/dir/file.ts")).toBe(true)
    expect(asks[0]!.patterns).toEqual([join(outside, "new", "dir", "*")])
  })

  it("a path that reaches the project through a symlink is inside", async () => {
    await symlink(project, join(outside, "alias"))
    const { ctx, asks } = context()
    expect(await assertExternalDirectory(ctx, join(outside, "alias", "src", "a.ts"))).toBe(false)
    expect(asks).toEqual([])
  })

  it("a project opened through a symlink still contains its files", async () => {
    await symlink(project, join(root, "project-link"))
    const { ctx, asks } = context({ directory: join(root, "project-link") })
    expect(await assertExternalDirectory(ctx, join(project, "src", "a.ts"))).toBe(false)
    expect(await assertExternalDirectory(ctx, "src/a.ts")).toBe(false)
    expect(asks).toEqual([])
  })

  it("does not ask inside the worktree, unless the worktree is /", async () => {
    const worktree = context({ directory: join(project, "src"), worktree: project })
    expect(await assertExternalDirectory(worktree.ctx, join(project, "README.md"))).toBe(false)
    const slash = context({ directory: join(project, "src"), worktree: "/" })
    expect(await assertExternalDirectory(slash.ctx, join(project, "README.md"))).toBe(true)
  })

  it("a rejected ask fails the call", async () => {
    const { ctx } = context({}, async () => {
      throw new PermissionRejectedError()
    })
    await expect(assertExternalDirectory(ctx, join(outside, "x"))).rejects.toBeInstanceOf(
      PermissionRejectedError,
    )
  })

  it("needs the project directory", async () => {
    const { ctx } = context({ directory: undefined })
    await expect(assertExternalDirectory(ctx, "/etc/x")).rejects.toThrow(/ctx\.extra\.directory/)
  })
})

describe("contains and realPath", () => {
  it("contains", () => {
    expect(contains("/a/b", "/a/b")).toBe(true)
    expect(contains("/a/b", "/a/b/c")).toBe(true)
    expect(contains("/a/b", "/a/bc")).toBe(false)
    expect(contains("/a/b", "/a")).toBe(false)
    expect(contains("/a/b", "/a/b/..c")).toBe(true)
    expect(contains("/", "/x")).toBe(true)
  })

  it("realPath resolves the nearest existing ancestor", async () => {
    await symlink(outside, join(project, "link"))
    expect(await realPath(join(project, "link", "x", "y"))).toBe(join(outside, "x", "y"))
    expect(await realPath(join(project, "src", "a.ts"))).toBe(join(project, "src", "a.ts"))
    expect(await realPath("/definitely/not/here")).toBe("/definitely/not/here")
  })
})
