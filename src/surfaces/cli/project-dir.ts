import { statSync } from "node:fs"
import { resolve } from "node:path"
import { UsageError } from "./io.ts"

/**
 * The project directory a command runs in: `--cwd` (relative to the current directory), else the
 * current directory. Checked before anything opens it, so a typo is a usage error that says what is
 * wrong rather than a raw ENOENT/ENOTDIR from deep inside start-up.
 * 1. Resolve it.
 * 2. It must exist and be a directory (a symlink to one is fine); otherwise `UsageError`.
 */
export function projectDirectory(cwd: string | undefined, current: string): string {
  const flag = cwd !== undefined
  const directory = resolve(current, cwd ?? ".")
  const what = flag ? `--cwd ${JSON.stringify(cwd)}` : `The current directory ${directory}`
  if (directory.includes("\u0000"))
    throw new UsageError(
      `${what} contains a NUL byte, which no path can contain. Pass the project directory.`,
    )
  let stats: ReturnType<typeof statSync>
  try {
    stats = statSync(directory, { throwIfNoEntry: false })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOTDIR")
      throw new UsageError(
        `${what} is not a directory: a part of ${directory} is a file. Pass a project directory.`,
      )
    if (code === "EACCES")
      throw new UsageError(
        `${what} cannot be opened: permission denied on ${directory}. Pass a directory you can read.`,
      )
    throw new UsageError(`${what} cannot be used (${(error as Error).message}). Pass a project directory.`)
  }
  if (!stats)
    throw new UsageError(`${what} does not exist (${directory}). Pass an existing project directory.`)
  if (!stats.isDirectory())
    throw new UsageError(`${what} is a file, not a directory (${directory}). Pass the project directory.`)
  return directory
}
