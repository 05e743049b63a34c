import { constants, type Stats } from "node:fs"
import {
  access,
  copyFile,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  utimes,
} from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { canonicalPath, canonicalPathSync } from "./canonical-path.ts"
import { describeWriteError, errorCode, writeRefusal } from "./errors.ts"
import { beginTemp, endTemp, tempName } from "./temp-files.ts"

export interface WriteOptions {
  /** Permission bits of the result. Default: the existing file's, or 0o644 (minus the umask) for a new file. */
  mode?: number
  /** Aborts the write before the rename; the target is then untouched. */
  signal?: AbortSignal
  /**
   * The canonical path a permission decision was made on (`checkExternalDirectory`'s `resolved`): the
   * write is refused, and nothing is written, when `path` no longer resolves to it (a symlink planted
   * since the check would redirect it).
   */
  expected?: string
}

/** Mode of a new file when none is given; the process umask still applies. */
const NEW_FILE_MODE = 0o644

/**
 * Replaces the content of `path` with `data` so that readers (and a crash) only ever see the old content
 * or the new one, never a mix.
 *
 * 1. Resolve where the bytes go: through symlinks to their target (the link itself is kept), creating
 *    missing parent directories. A directory, a device, FIFO or socket, or an existing file this user may
 *    not write (e.g. `chmod a-w`) is refused.
 * 2. Create a temp file `.<name>.<pid>-<start>-<random>.tmp` in the same directory (named after its
 *    writer, and listed in the process's in-flight list first, so the next start removes it if this
 *    process is killed: `temp-files.ts`), give it the final owner (when running as root) and mode before
 *    any byte is written, write `data`, fsync it.
 * 3. Just before the rename, resolve `path` again: when it no longer lands on the target (or on
 *    `expected`), a symlink was planted meanwhile, and the write is refused. The rename itself never
 *    follows a symlink at the target (it replaces it), and the temp file is created with O_EXCL and
 *    O_NOFOLLOW, so a link planted at either name cannot redirect the bytes.
 * 4. Rename it over the target, then fsync the directory (best effort) so the rename itself is durable.
 * On failure the temp file is removed and a `FileSystemError` says what failed and what to do; an abort
 * rethrows the signal's reason. `data` is written as is: a string as UTF-8, with whatever BOM and line
 * endings it has. Serialising writers is the caller's job (`withFileLock`). A file with several hard
 * links is replaced by a new file, so the other names keep the old content (as with most editors'
 * atomic saves).
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  const { signal } = options
  signal?.throwIfAborted()
  const target = await canonicalPath(path)
  const dir = dirname(target)
  let temp: string | undefined
  let handle: FileHandle | undefined
  try {
    assertLandsOn(path, target, options.expected)
    const existing = await statIfExists(target)
    if (existing?.isDirectory())
      throw writeRefusal(path, "it is a directory, not a file. Give the path of a file.", "EISDIR")
    if (existing && !existing.isFile())
      throw writeRefusal(
        path,
        "it is not a regular file (a device, FIFO or socket), so it is not replaced. Give the path of a regular file.",
      )
    if (existing) await assertWritable(target, path)
    if (!existing) {
      await mkdir(dir, { recursive: true })
      // mkdir follows a link planted in place of a directory it creates: check before any byte is written.
      assertLandsOn(path, target, options.expected)
    }
    const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined)
    temp = join(dir, tempName(target))
    await beginTemp(temp)
    handle = await open(temp, CREATE_NEW, mode === undefined ? NEW_FILE_MODE : 0o600)
    if (existing && isRoot()) await handle.chown(existing.uid, existing.gid)
    if (mode !== undefined) await handle.chmod(mode)
    await handle.writeFile(data, signal ? { signal } : {})
    await handle.sync()
    await handle.close()
    handle = undefined
    signal?.throwIfAborted()
    assertLandsOn(path, target, options.expected)
    await rename(temp, target)
    temp = undefined
    endTemp()
  } catch (error) {
    await handle?.close().catch(() => {})
    if (temp) await rm(temp, { force: true }).catch(() => {})
    if (temp) endTemp()
    throw describeWriteError(error, path, dir)
  }
  await syncDirectory(dir)
}

/** A new file only: never an existing one, and never through a symlink at the last component. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)

/**
 * Refuses a write whose path no longer resolves where it did (`target`, computed at the start of the
 * write) or where the caller's permission check said it would (`expected`): a symlink was planted or
 * changed in the path meanwhile, and following it could put the bytes anywhere. Throws a
 * `FileSystemError` that says so.
 */
export function assertLandsOn(path: string, target: string, expected?: string): void {
  const now = canonicalPathSync(path)
  if (now === target && (expected === undefined || now === expected)) return
  const checked = expected ?? target
  throw writeRefusal(
    path,
    `it now resolves to ${now}, not to ${checked} where it resolved when the write was checked: a symlink ` +
      "in the path was created or changed meanwhile. Nothing was written. Check the path (ls -l) and retry " +
      "if the link is intended.",
    "ELOOP",
  )
}

export interface RenameOptions {
  signal?: AbortSignal
}

/**
 * Moves the file (or symlink) `from` to `to`, replacing `to` if it exists, creating missing parent
 * directories of `to`. Within one file system this is a single rename. Across file systems (EXDEV) the
 * file is copied to a temp file beside `to` (mode, owner when root, and times kept), fsynced, renamed
 * over `to`, and only then is `from` removed: at no point is there no complete copy. Moving a directory
 * across file systems is refused. Directories are fsynced afterwards (best effort).
 */
export async function renameAtomic(from: string, to: string, options: RenameOptions = {}): Promise<void> {
  const { signal } = options
  signal?.throwIfAborted()
  const source = resolve(from)
  // The parent is canonical (a symlinked directory is followed); a symlink at `to` itself is replaced.
  const target = join(await canonicalPath(dirname(resolve(to))), basename(resolve(to)))
  const dir = dirname(target)
  try {
    const existing = await lstatIfExists(target)
    if (existing?.isDirectory())
      throw writeRefusal(to, "it is a directory, not a file. Give the path of a file.", "EISDIR")
    await mkdir(dir, { recursive: true })
    await rename(source, target)
  } catch (error) {
    if (errorCode(error) !== "EXDEV") throw describeMoveError(error, { from, to, dir })
    await copyAcrossDevices({ source, target, from, to, signal })
  }
  await syncDirectory(dir)
  if (dirname(source) !== dir) await syncDirectory(dirname(source))
}

async function copyAcrossDevices({
  source,
  target,
  from,
  to,
  signal,
}: {
  source: string
  target: string
  from: string
  to: string
  signal: AbortSignal | undefined
}): Promise<void> {
  const dir = dirname(target)
  const stats = await lstat(source)
  if (stats.isDirectory())
    throw writeRefusal(
      to,
      `${from} is a directory, and moving a directory to another file system is not supported. Copy it instead, then remove the original.`,
    )
  if (stats.isSymbolicLink()) {
    // A link is small: recreate it through the normal path, then remove the original.
    const temp = join(dir, tempName(target))
    try {
      await symlink(await readlink(source), temp)
      await rename(temp, target)
    } catch (error) {
      await rm(temp, { force: true }).catch(() => {})
      throw describeMoveError(error, { from, to, dir })
    }
    await rm(source, { force: true })
    return
  }
  const temp = join(dir, tempName(target))
  let handle: FileHandle | undefined
  await beginTemp(temp)
  try {
    signal?.throwIfAborted()
    await copyFile(source, temp, constants.COPYFILE_EXCL)
    handle = await open(temp, "r+")
    if (isRoot()) await handle.chown(stats.uid, stats.gid)
    await handle.chmod(stats.mode & 0o7777)
    await handle.sync()
    await handle.close()
    handle = undefined
    await utimes(temp, stats.atime, stats.mtime)
    signal?.throwIfAborted()
    await rename(temp, target)
  } catch (error) {
    await handle?.close().catch(() => {})
    await rm(temp, { force: true }).catch(() => {})
    throw describeMoveError(error, { from, to, dir })
  } finally {
    endTemp()
  }
  await syncDirectory(dir)
  try {
    await rm(source)
  } catch (error) {
    throw describeMoveError(error, { from, to, dir: dirname(source) })
  }
}

function describeMoveError(
  error: unknown,
  { from, to, dir }: { from: string; to: string; dir: string },
): unknown {
  if (errorCode(error) === "ENOENT")
    return writeRefusal(to, `the file to move, ${from}, does not exist. Check the path.`, "ENOENT")
  return describeWriteError(error, `${to} (moving ${from})`, dir)
}

async function statIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path)
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined
    throw error
  }
}

async function lstatIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path)
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined
    throw error
  }
}

/**
 * A rename replaces a file without writing to it, which would defeat `chmod a-w`: refuse to replace a
 * file this user could not write in place.
 */
async function assertWritable(target: string, path: string): Promise<void> {
  try {
    await access(target, constants.W_OK)
  } catch (error) {
    if (errorCode(error) !== "EACCES" && errorCode(error) !== "EPERM") throw error
    throw writeRefusal(
      path,
      `permission denied: the file ${target} is read-only. Make it writable first (chmod u+w), if that is intended.`,
      "EACCES",
    )
  }
}

/** fsync a directory so a rename in it survives a power cut; some platforms cannot, which is fine. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(dir, "r")
    await handle.sync()
  } catch {
    // Best effort: the data itself is already synced.
  } finally {
    await handle?.close().catch(() => {})
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0
}
