import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { canonicalPath } from "../../platform/fs/canonical-path.ts"
import { PermissionRejectedError } from "../../runtime/permission/errors.ts"
import type { AskInput, Context } from "../../runtime/tool/context.ts"
import {
  assertExternalDirectory,
  checkExternalDirectory,
  contains,
  ROOT_REUSE_MS,
} from "./external-directory.ts"

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

  it("a project path retargeted to another directory is followed once its root is resolved again", async () => {
    // The project is a symlink the user points elsewhere: the new target's files are inside once the
    // root's canonical path is looked up again (ROOT_REUSE_MS), and the old target's are outside.
    const link = join(root, "current")
    await symlink(project, link)
    const { ctx, asks } = context({ directory: link })
    expect(await assertExternalDirectory(ctx, join(project, "src", "a.ts"))).toBe(false)
    await rm(link)
    await symlink(outside, link)
    await new Promise((done) => setTimeout(done, ROOT_REUSE_MS + 50))
    expect(await assertExternalDirectory(ctx, join(outside, "secret.txt"))).toBe(false)
    expect(await assertExternalDirectory(ctx, join(project, "src", "a.ts"))).toBe(true)
    expect(asks.map((ask) => ask.patterns)).toEqual([[join(project, "src", "*")]])
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

describe("dangling symlinks: the decision is made on where a write lands", () => {
  const asksFor = async (target: string) => {
    const { ctx, asks } = context()
    const decision = await checkExternalDirectory(ctx, target)
    return { decision, asks }
  }

  it("a dangling link to a file outside is outside", async () => {
    await symlink(join(outside, "authorized_keys"), join(project, "keys"))
    const { decision, asks } = await asksFor("keys")
    expect(decision).toEqual({ asked: true, resolved: join(outside, "authorized_keys") })
    expect(asks[0]!.patterns).toEqual([join(outside, "*")])
  })

  it("a relative dangling link is resolved against the link's directory", async () => {
    await symlink("../../outside/new.txt", join(project, "src", "rel"))
    const { decision } = await asksFor("src/rel")
    expect(decision).toEqual({ asked: true, resolved: join(outside, "new.txt") })
  })

  it("a dangling link to a missing directory outside, with a new file (and directories) under it", async () => {
    await symlink(join(outside, "not", "yet"), join(project, "dir"))
    const { decision } = await asksFor("dir/a/b/file.ts")
    expect(decision.resolved).toBe(join(outside, "not", "yet", "a", "b", "file.ts"))
    expect(decision.asked).toBe(true)
  })

  it("a chain of links, the last one dangling outside", async () => {
    await symlink(join(outside, "end.txt"), join(project, "src", "third"))
    await symlink("src/third", join(project, "second"))
    await symlink(join(project, "second"), join(project, "first"))
    const { decision } = await asksFor("first")
    expect(decision).toEqual({ asked: true, resolved: join(outside, "end.txt") })
  })

  it("`..` after a link is taken from the link's target, as the kernel does", async () => {
    await mkdir(join(outside, "a", "b"), { recursive: true })
    await symlink(join(outside, "a", "b"), join(project, "src", "deep"))
    // src/deep/../x is outside/a/x for the kernel, not src/x.
    await symlink("deep/../x.txt", join(project, "src", "tricky"))
    const { decision } = await asksFor("src/tricky")
    expect(decision).toEqual({ asked: true, resolved: join(outside, "a", "x.txt") })
  })

  it("a dangling link that stays inside the project is inside", async () => {
    await symlink("future.ts", join(project, "src", "alias.ts"))
    const { decision, asks } = await asksFor("src/alias.ts")
    expect(decision).toEqual({ asked: false, resolved: join(project, "src", "future.ts") })
    expect(asks).toEqual([])
  })

  it("a link loop is not an escape", async () => {
    await symlink("loop-b", join(project, "loop-a"))
    await symlink("loop-a", join(project, "loop-b"))
    const { decision } = await asksFor("loop-a/x")
    expect(decision.asked).toBe(false)
  })

  it("nothing is created while deciding", async () => {
    await symlink(join(outside, "nope", "deeper"), join(project, "dir"))
    await asksFor("dir/x.txt")
    expect(await readdir(outside)).toEqual(["deep", "secret.txt"])
  })
})

describe("contains and canonicalPath", () => {
  it("contains", () => {
    expect(contains("/a/b", "/a/b")).toBe(true)
    expect(contains("/a/b", "/a/b/c")).toBe(true)
    expect(contains("/a/b", "/a/bc")).toBe(false)
    expect(contains("/a/b", "/a")).toBe(false)
    expect(contains("/a/b", "/a/b/..c")).toBe(true)
    expect(contains("/", "/x")).toBe(true)
  })

  it("canonicalPath resolves the nearest existing ancestor, and links below it", async () => {
    await symlink(outside, join(project, "link"))
    expect(await canonicalPath(join(project, "link", "x", "y"))).toBe(join(outside, "x", "y"))
    expect(await canonicalPath(join(project, "src", "a.ts"))).toBe(join(project, "src", "a.ts"))
    expect(await canonicalPath("/definitely/not/here")).toBe("/definitely/not/here")
    await symlink(join(outside, "gone"), join(project, "dangling"))
    expect(await canonicalPath(join(project, "dangling", "x"))).toBe(join(outside, "gone", "x"))
  })
})
