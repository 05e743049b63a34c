// A temporary project for the custom tool tests: a git worktree with the project in a subdirectory, a
// fake home for the global config dirs, and a way to write files anywhere in them.
import { spawnSync } from "node:child_process"
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

export interface TempProject {
  /** The worktree root (`git init` ran here). */
  readonly root: string
  /** The project directory, two levels under the root. */
  readonly directory: string
  /** The fake home: `.config/` lives here. */
  readonly home: string
  readonly dataDir: string
  readonly env: NodeJS.ProcessEnv
  /** Writes a file (creating its folders); the path is relative to `root`, or absolute. */
  write(path: string, content: string): Promise<string>
  link(path: string, target: string): Promise<string>
  remove(): Promise<void>
}

export async function tempProject(): Promise<TempProject> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-custom-")))
  const root = join(base, "repo")
  const directory = join(root, "packages", "app")
  const home = join(base, "home")
  await mkdir(directory, { recursive: true })
  await mkdir(home, { recursive: true })
  const git = spawnSync("git", ["init", "-q", root], { encoding: "utf8" })
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`)
  const at = (path: string) => (path.startsWith("/") ? path : join(root, path))
  return {
    root,
    directory,
    home,
    dataDir: join(base, "data"),
    env: { PATH: process.env.PATH, HOME: home },
    async write(path, content) {
      const file = at(path)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, content)
      return file
    },
    async link(path, target) {
      const file = at(path)
      await mkdir(dirname(file), { recursive: true })
      await symlink(at(target), file)
      return file
    },
    remove: () => rm(base, { recursive: true, force: true }),
  }
}
