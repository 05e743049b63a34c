import { type Stats, statSync } from "node:fs"
import { dirname } from "node:path"

/**
 * A file operation that failed, with a message that says what failed and what to do about it (it reaches
 * the model as is). `code` is the system error code (`EACCES`, `ENOSPC`, ...) when there was one, and
 * `cause` the original error.
 */
export class FileSystemError extends Error {
  override readonly name = "FileSystemError"
  readonly code: string | undefined
  readonly path: string

  constructor(message: string, options: { path: string; code?: string; cause?: unknown }) {
    super(message, { cause: options.cause })
    this.code = options.code
    this.path = options.path
  }
}

/** The system error code of `error` (`ENOENT`, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

/** Whether `error` is an abort (from an AbortSignal), which is passed on untouched, never described. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || errorCode(error) === "ABORT_ERR")
}

/**
 * Turns a failed write (or move) of `path` into a `FileSystemError` whose message names the cause and
 * the fix. `dir` is the directory the file goes into. Aborts are returned untouched.
 */
export function describeWriteError(error: unknown, path: string, dir: string): unknown {
  if (isAbortError(error) || error instanceof FileSystemError) return error
  const code = errorCode(error)
  const fail = (reason: string) =>
    new FileSystemError(`Cannot write ${path}: ${reason}`, { path, cause: error, ...(code ? { code } : {}) })
  switch (code) {
    case "EACCES":
    case "EPERM": {
      const existing = nearestExisting(dir)
      if (existing === dir)
        return fail(
          `permission denied: the directory ${dir} is not writable (or the file is protected). ` +
            "Fix the permissions, or write somewhere else.",
        )
      return fail(
        `permission denied: cannot create the directory ${dir} because ${existing} is not writable. ` +
          "Fix the permissions, or write somewhere else.",
      )
    }
    case "ENOSPC":
      return fail("the disk is full (no space left on the device). Free up space, then try again.")
    case "EDQUOT":
      return fail("the disk quota is exhausted. Free up space, then try again.")
    case "EISDIR":
      return fail("it is a directory, not a file. Give the path of a file.")
    case "ENOTDIR":
    case "EEXIST": {
      const file = fileAncestor(dir)
      if (file)
        return fail(
          `${file} is a file, not a directory, so nothing can be created under it. Move or rename it, or write somewhere else.`,
        )
      return fail(`a part of the path is not a directory (${messageOf(error)}). Check the path.`)
    }
    case "EROFS":
      return fail("the file system is read-only. Write somewhere else.")
    case "ENAMETOOLONG":
      return fail("the file name is too long. Use a shorter name.")
    case "ELOOP":
      return fail("too many levels of symbolic links (a symlink loop?). Check the links on the path (ls -l).")
    case "EMFILE":
    case "ENFILE":
      return fail("too many open files right now. Try again in a moment.")
    case "ETXTBSY":
      return fail("the file is a program that is running. Stop it first.")
    default:
      return fail(messageOf(error))
  }
}

/** A FileSystemError that is not a system error (a refusal), with the same message shape. */
export function writeRefusal(path: string, reason: string, code?: string): FileSystemError {
  return new FileSystemError(`Cannot write ${path}: ${reason}`, { path, ...(code ? { code } : {}) })
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** `path` or its nearest ancestor that exists. */
function nearestExisting(path: string): string {
  for (let current = path; ; current = dirname(current)) {
    if (statQuietly(current) || dirname(current) === current) return current
  }
}

/** The nearest ancestor of `path` (or `path` itself) that exists and is not a directory. */
function fileAncestor(path: string): string | undefined {
  for (let current = path; ; current = dirname(current)) {
    const stats = statQuietly(current)
    if (stats) return stats.isDirectory() ? undefined : current
    if (dirname(current) === current) return undefined
  }
}

function statQuietly(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}
