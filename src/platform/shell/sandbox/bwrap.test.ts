import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { bwrapArgs, gitProtectedPaths, sandboxArgv, sandboxAvailability } from "./bwrap.ts"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-sandbox-"))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe("bwrapArgs", () => {
  it("binds the root read-only, then the writable dirs, then re-protects paths inside them", async () => {
    const project = join(dir, "project")
    await mkdir(join(project, ".git", "hooks"), { recursive: true })
    const args = bwrapArgs({
      project,
      tmp: dir,
      protect: [join(project, ".git", "hooks"), join(project, "missing"), "/etc"],
      cwd: project,
    })
    expect(args.slice(0, 3)).toEqual(["--ro-bind", "/", "/"])
    expect(args).toContain("--unshare-net")
    expect(args).toContain("--die-with-parent")
    const joined = args.join(" ")
    expect(joined).toContain(
      `--bind ${dir} ${dir} --bind ${project} ${project} --ro-bind ${project}/.git/hooks ${project}/.git/hooks`,
    )
    // Missing paths cannot be bound, and /etc is read-only already.
    expect(joined).not.toContain("missing")
    expect(joined).not.toContain("/etc")
    expect(args.slice(-2)).toEqual(["--chdir", project])
  })

  it("shares the network only when allowed", () => {
    expect(bwrapArgs({ project: dir, tmp: dir, cwd: dir, network: true })).not.toContain("--unshare-net")
  })

  it("wraps an argv after --", () => {
    const argv = sandboxArgv("/usr/bin/bwrap", { project: dir, tmp: dir, cwd: dir }, [
      "/bin/sh",
      "-c",
      "true",
    ])
    expect(argv[0]).toBe("/usr/bin/bwrap")
    expect(argv.slice(-4)).toEqual(["--", "/bin/sh", "-c", "true"])
  })
})

describe("gitProtectedPaths", () => {
  it("protects hooks and config, creating a missing hooks dir", async () => {
    await mkdir(join(dir, ".git"))
    expect(gitProtectedPaths(dir)).toEqual([join(dir, ".git", "hooks"), join(dir, ".git", "config")])
  })

  it("follows a .git file to the git dir and its common dir", async () => {
    const common = join(dir, "main.git")
    const gitDir = join(common, "worktrees", "wt")
    await mkdir(gitDir, { recursive: true })
    await writeFile(join(gitDir, "commondir"), "../..\n")
    const worktree = join(dir, "wt")
    await mkdir(worktree)
    await writeFile(join(worktree, ".git"), `gitdir: ${gitDir}\n`)
    expect(gitProtectedPaths(worktree)).toEqual([
      join(gitDir, "hooks"),
      join(gitDir, "config"),
      join(common, "hooks"),
      join(common, "config"),
    ])
  })

  it("has nothing to protect outside a repository", () => {
    expect(gitProtectedPaths(dir)).toEqual([])
  })
})

describe("sandboxAvailability", () => {
  it("says why when bubblewrap is not on PATH", () => {
    const result = sandboxAvailability({ env: { PATH: dir }, refresh: true })
    expect(result).toEqual({
      available: false,
      reason: expect.stringContaining(
        process.platform === "linux" ? "bubblewrap (`bwrap`) is not installed" : "needs Linux",
      ),
    })
    sandboxAvailability({ refresh: true })
  })
})
