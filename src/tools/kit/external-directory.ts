import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { canonicalPath, canonicalPathSync } from "../../platform/fs/canonical-path.ts"
import { monotonicMs } from "../../platform/util/clock.ts"
import type { Context } from "../../runtime/tool/context.ts"

export interface ExternalDirectoryOptions {
  /** `directory` asks for the target itself, `file` (default) for its parent. */
  readonly kind?: "file" | "directory"
  /** Skip the check (the caller has asked already). */
  readonly bypass?: boolean
}

/** What the guard decided on. */
export interface ExternalDirectoryDecision {
  /** Whether `external_directory` was asked (and granted: a refusal throws). */
  readonly asked: boolean
  /**
   * The canonical path the decision was made on (`canonicalPath`: where a write to the target lands),
   * or undefined when there was no target or the check was bypassed. A writer that passes it on to
   * `writeFileAtomic` (`expected`) refuses to write when a symlink planted since redirects the path.
   */
  readonly resolved: string | undefined
}

/**
 * Asks `external_directory` before a tool touches a path outside the project.
 * 1. No target, or `bypass`: nothing to do.
 * 2. Resolve the target against the project (`ctx.extra.directory`) to its canonical path: the path a
 *    write to it lands on, with every symlink followed, also dangling ones, chains of them, and links in
 *    parent directories the write would create (`canonicalPath`, the writer's own resolution). A symlink
 *    inside the project that points outside is outside; a path that reaches the project through a
 *    symlink is inside.
 * 3. Inside the project, or inside `ctx.extra.worktree` (unless that is `/`): no ask.
 * 4. Otherwise ask with pattern and always `<dir>/*`, where `dir` is the target for `kind: "directory"`
 *    and its parent for files; metadata `{filepath, parentDir}`.
 * Returns whether it asked, and the canonical path it decided on.
 */
export async function checkExternalDirectory(
  ctx: Context,
  target: string | undefined,
  options: ExternalDirectoryOptions = {},
): Promise<ExternalDirectoryDecision> {
  if (!target || options.bypass) return { asked: false, resolved: undefined }
  const directory = ctx.extra.directory
  if (typeof directory !== "string" || directory === "") {
    throw new Error("assertExternalDirectory needs ctx.extra.directory (the project directory).")
  }
  const filepath = await canonicalPath(resolve(directory, target))
  const roots = [canonicalRoot(resolve(directory))]
  const worktree = ctx.extra.worktree
  if (typeof worktree === "string" && worktree !== "") {
    const tree = resolve(worktree)
    if (tree !== resolve("/") && tree !== resolve(directory)) roots.push(canonicalRoot(tree))
  }
  if (roots.some((root) => contains(root, filepath))) return { asked: false, resolved: filepath }

  const parentDir = options.kind === "directory" ? filepath : dirname(filepath)
  const pattern = toPattern(join(parentDir, "*"))
  await ctx.ask({
    permission: "external_directory",
    patterns: [pattern],
    always: [pattern],
    metadata: { filepath, parentDir },
  })
  return { asked: true, resolved: filepath }
}

/**
 * How long a project root's canonical path is reused. The target is resolved at every check (a symlink
 * planted in the project is seen at once); the project directory and worktree themselves do not move
 * under a session, and resolving them too cost every read a realpath each (one readlink per component).
 */
export const ROOT_REUSE_MS = 1000

const knownRoots = new Map<string, { readonly real: string; readonly at: number }>()

function canonicalRoot(root: string): string {
  const now = monotonicMs()
  const known = knownRoots.get(root)
  if (known && now - known.at < ROOT_REUSE_MS) return known.real
  const real = canonicalPathSync(root)
  // A process serves a handful of projects; one that walks many keeps only the recent ones.
  if (knownRoots.size >= 64) knownRoots.clear()
  knownRoots.set(root, { real, at: now })
  return real
}

/** `checkExternalDirectory`, returning only whether it asked. */
export async function assertExternalDirectory(
  ctx: Context,
  target: string | undefined,
  options: ExternalDirectoryOptions = {},
): Promise<boolean> {
  return (await checkExternalDirectory(ctx, target, options)).asked
}

/** Whether `path` is `root` or inside it (both absolute and real). */
export function contains(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))
}

function toPattern(path: string): string {
  return sep === "\\" ? path.replaceAll("\\", "/") : path
}
