import { existsSync } from "node:fs"
import { dirname, join } from "node:path"

/**
 * The repository root containing `directory` (where `.git` is, as a directory or a worktree file), or
 * the directory itself when it is not in a repository. Permission patterns are relative to it.
 */
export function findWorktree(directory: string): string {
  let current = directory
  for (;;) {
    if (existsSync(join(current, ".git"))) return current
    const parent = dirname(current)
    if (parent === current) return directory
    current = parent
  }
}
