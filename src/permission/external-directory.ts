import { realpathSync } from "node:fs"
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import type { Context } from "../tool/context.ts"

export interface ExternalDirectoryOptions {
  /** `directory` asks for the target itself, `file` (default) for its parent. */
  readonly kind?: "file" | "directory"
  /** Skip the check (the caller has asked already). */
  readonly bypass?: boolean
}

/**
 * Asks `external_directory` before a tool touches a path outside the project.
 * 1. No target, or `bypass`: nothing to do.
 * 2. Resolve the target against the project (`ctx.extra.directory`) and follow symlinks: of the target,
 *    or of its nearest existing ancestor when it does not exist yet. A symlink inside the project that
 *    points outside is outside; a path that reaches the project through a symlink is inside.
 * 3. Inside the project, or inside `ctx.extra.worktree` (unless that is `/`): no ask.
 * 4. Otherwise ask with pattern and always `<dir>/*`, where `dir` is the target for `kind: "directory"`
 *    and its parent for files; metadata `{filepath, parentDir}`.
 * Returns whether it asked.
 */
export async function assertExternalDirectory(
  ctx: Context,
  target: string | undefined,
  options: ExternalDirectoryOptions = {},
): Promise<boolean> {
  if (!target || options.bypass) return false
  const directory = ctx.extra.directory
  if (typeof directory !== "string" || directory === "") {
    throw new Error("assertExternalDirectory needs ctx.extra.directory (the project directory).")
  }
  const filepath = await realPath(resolve(directory, target))
  const roots = [await realPath(resolve(directory))]
  const worktree = ctx.extra.worktree
  if (typeof worktree === "string" && worktree !== "" && resolve(worktree) !== resolve("/")) {
    roots.push(await realPath(resolve(worktree)))
  }
  if (roots.some((root) => contains(root, filepath))) return false

  const parentDir = options.kind === "directory" ? filepath : dirname(filepath)
  const pattern = toPattern(join(parentDir, "*"))
  await ctx.ask({
    permission: "external_directory",
    patterns: [pattern],
    always: [pattern],
    metadata: { filepath, parentDir },
  })
  return true
}

/** Whether `path` is `root` or inside it (both absolute and real). */
export function contains(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))
}

/**
 * The real path of an absolute `path`: symlinks resolved; when it does not exist, its nearest existing
 * ancestor's real path joined with the rest.
 */
export async function realPath(path: string): Promise<string> {
  const rest: string[] = []
  let current = path
  for (;;) {
    try {
      // Synchronous: realpath(3) of a local path takes microseconds, a trip through the thread pool tens
      // of them, and every tool call runs this guard for the target and the project roots.
      const real = realpathSync.native(current)
      return rest.length ? join(real, ...rest.reverse()) : real
    } catch {
      // Missing (or unreadable): the nearest ancestor that resolves decides where the path really is.
      const parent = dirname(current)
      if (parent === current) return path
      rest.push(basename(current))
      current = parent
    }
  }
}

function toPattern(path: string): string {
  return sep === "\\" ? path.replaceAll("\\", "/") : path
}
