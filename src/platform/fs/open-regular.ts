import { constants } from "node:fs"
import { type FileHandle, open } from "node:fs/promises"
import { describeFileType } from "./file-type.ts"

/**
 * Open flags for reading that never block: on a FIFO, `O_NONBLOCK` returns at once instead of waiting for
 * a writer (which no abort could interrupt), and `O_NOCTTY` keeps a terminal from becoming ours. Neither
 * changes anything for a regular file.
 */
export const NONBLOCKING_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)

/** What was found at a path that had to be a regular file. */
export class NotRegularFileError extends Error {
  override readonly name = "NotRegularFileError"
  readonly path: string
  constructor(path: string, what: string) {
    super(`${path} is ${what}, not a regular file, so it was not read. Only regular files can be used here.`)
    this.path = path
  }
}

/**
 * Opens `path` for reading, only if it is a regular file. The type is checked on the opened descriptor,
 * so a FIFO or device swapped in after an earlier `stat` is refused too, and the open itself never blocks.
 */
export async function openRegular(path: string): Promise<FileHandle> {
  const handle = await open(path, NONBLOCKING_READ)
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) throw new NotRegularFileError(path, describeFileType(stats))
    return handle
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
}
