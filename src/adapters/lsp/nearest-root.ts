// The workspace root a server is started for: the nearest directory above a file that holds one of the
// server's root markers (tsconfig.json, pyproject.toml, go.mod, Cargo.toml, ...).

import { existsSync, readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { projectDirs } from "./find-command.ts"

/**
 * The nearest directory from `file`'s own up to `directory` (the project) that holds one of `markers`
 * (`*.csproj` matches any name with that extension); `directory` when none does. A file outside the
 * project looks only in its own directory and falls back to it.
 */
export function nearestRoot({
  file,
  markers,
  directory,
}: {
  file: string
  markers: readonly string[]
  directory: string
}): string {
  const start = dirname(file)
  const dirs = projectDirs(start, directory)
  const outside = dirs.length === 1 && start !== directory
  for (const dir of dirs) {
    if (markers.some((marker) => holds(dir, marker))) return dir
  }
  return outside ? start : directory
}

function holds(dir: string, marker: string): boolean {
  if (!marker.startsWith("*")) return existsSync(join(dir, marker))
  const suffix = marker.slice(1)
  try {
    return readdirSync(dir).some((name) => name.endsWith(suffix))
  } catch {
    return false
  }
}
