// Finds a language server's program where a project or its machine has it: the project's
// node_modules/.bin (from the workspace root up to the project directory; a trusted project's only),
// then PATH. Nothing is downloaded.

import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from "node:fs"
import { delimiter, dirname, isAbsolute, join, relative, sep } from "node:path"

/**
 * The absolute path of `name`: in `node_modules/.bin` of `root` or a directory above it up to and
 * including `directory` (the project), else in one of `PATH`'s directories. An absolute or relative
 * path (one with a `/`) is taken as it is, relative to `root`. Undefined when nothing executable is there.
 * With `projectPrograms` false (a project no person trusted), the project is not searched, and neither
 * a relative path nor a relative `PATH` entry (both name the project's files) is used.
 */
export function findCommand({
  name,
  root,
  directory,
  env,
  projectPrograms = true,
}: {
  name: string
  root: string
  directory: string
  env: Readonly<Record<string, string | undefined>>
  projectPrograms?: boolean | undefined
}): string | undefined {
  if (name.includes("/") || (sep === "\\" && name.includes("\\"))) {
    const path = isAbsolute(name) ? name : join(root, name)
    if (!projectPrograms && !isAbsolute(name)) return undefined
    return executable(path) ? path : undefined
  }
  for (const dir of projectPrograms ? projectDirs(root, directory) : []) {
    const candidate = join(dir, "node_modules", ".bin", name)
    if (executable(candidate)) return candidate
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue
    // A relative PATH entry (`node_modules/.bin`) names the project's programs.
    if (!projectPrograms && !isAbsolute(dir)) continue
    const candidate = join(dir, name)
    if (executable(candidate)) return candidate
  }
  return undefined
}

/**
 * The argv that runs `program`: a script that runs on `node` (an npm package's bin) runs on the Node
 * running toolbelt, which may be newer than the one on PATH (typescript-language-server needs 22.22).
 */
export function programArgv(program: string, args: readonly string[]): string[] {
  if (!process.versions.bun && isNodeScript(program))
    return [process.execPath, realpathSync(program), ...args]
  return [program, ...args]
}

/** `root`, then each directory above it while inside `directory`; `root` alone when it is outside. */
export function projectDirs(root: string, directory: string): string[] {
  const dirs = [root]
  let dir = root
  while (inside(directory, dir) && dir !== directory) {
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
    dirs.push(dir)
  }
  return dirs
}

function inside(directory: string, path: string): boolean {
  const rel = relative(directory, path)
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))
}

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const NODE_SHEBANG = /^#!\s*(?:\/usr\/bin\/env\s+(?:-S\s+)?)?\S*\bnode\s*$/

function isNodeScript(path: string): boolean {
  let fd: number | undefined
  try {
    fd = openSync(path, "r")
    const head = Buffer.alloc(128)
    const read = readSync(fd, head, 0, head.length, 0)
    const line = head.subarray(0, read).toString("latin1").split("\n")[0] ?? ""
    return NODE_SHEBANG.test(line.trimEnd())
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
