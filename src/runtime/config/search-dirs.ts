// Where the user's own additions (tool files, skills) are looked for: the global config dirs, and the
// project directory with its parents up to the repository root.

import { homedir } from "node:os"
import { isAbsolute, join, relative, resolve, sep } from "node:path"

/** A global config dir, and whose layout it has (opencode's, read for compatibility, or toolbelt's). */
export interface GlobalDir {
  readonly dir: string
  readonly kind: "opencode" | "toolbelt"
}

/**
 * The global config dirs, least specific first (each once): `~/.config/opencode`, then
 * `$XDG_CONFIG_HOME/opencode`, `~/.config/toolbelt`, `$XDG_CONFIG_HOME/toolbelt`, `$TOOLBELT_CONFIG_DIR`.
 */
export function globalDirs(env: NodeJS.ProcessEnv = process.env): GlobalDir[] {
  const dotConfig = join(homeDir(env), ".config")
  const xdg = env.XDG_CONFIG_HOME ? resolve(env.XDG_CONFIG_HOME) : undefined
  const dirs: GlobalDir[] = [{ dir: join(dotConfig, "opencode"), kind: "opencode" }]
  if (xdg) dirs.push({ dir: join(xdg, "opencode"), kind: "opencode" })
  dirs.push({ dir: join(dotConfig, "toolbelt"), kind: "toolbelt" })
  if (xdg) dirs.push({ dir: join(xdg, "toolbelt"), kind: "toolbelt" })
  if (env.TOOLBELT_CONFIG_DIR) dirs.push({ dir: resolve(env.TOOLBELT_CONFIG_DIR), kind: "toolbelt" })
  const seen = new Set<string>()
  return dirs.filter(({ dir }) => !seen.has(dir) && seen.add(dir))
}

/** The user's home: `HOME` (or `USERPROFILE`) of `env`, else the system's. */
export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME || env.USERPROFILE || homedir()
}

/** `directory` and its parents up to `worktree` (inclusive), closest first; just `directory` when outside. */
export function projectLevels(directory: string, worktree: string): string[] {
  const from = resolve(directory)
  const root = resolve(worktree)
  if (!isInside(from, root)) return [from]
  const levels = [from]
  let current = from
  while (current !== root) {
    current = resolve(current, "..")
    levels.push(current)
  }
  return levels
}

/** Whether `path` is `root` or below it. */
export function isInside(path: string, root: string): boolean {
  const inside = relative(root, path)
  return inside !== ".." && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)
}
