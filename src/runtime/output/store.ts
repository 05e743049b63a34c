import type { FileHandle } from "node:fs/promises"
import { lstat, mkdir, open, readdir, rename, rm } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { newOutputId, OUTPUT_PREFIX, timestampOf } from "../../platform/fs/output-id.ts"
import type { OutputOwner, StoredOutputs } from "../../platform/store/outputs.ts"
import { safeBoundary } from "../../platform/text/utf8.ts"
import { logger } from "../../platform/util/log.ts"
import { copyToStore, type OpenedOutput, OUTPUT_ID, openOutput } from "./shared.ts"

const log = logger("output")

const DAY_MS = 24 * 60 * 60 * 1000
/** Saved output is kept long enough to come back to within a working week, as opencode does. */
export const DEFAULT_MAX_AGE_MS = 7 * DAY_MS
/** Characters encoded per write: the output is never turned into one buffer as large as itself. */
const CHUNK_CHARS = 1 << 20
/** The one reusable write buffer: a UTF-16 unit is at most 3 UTF-8 bytes. */
const BUFFER_BYTES = CHUNK_CHARS * 3

export interface SweepOptions {
  now?: number
  maxAgeMs?: number
}

export interface SweeperOptions {
  firstDelayMs?: number
  intervalMs?: number
  /** Where sweep failures go; the timer never throws. Defaults to stderr. */
  log?: (message: string) => void
}

/**
 * The managed output store: full tool output that was too large to show the model, saved so the model
 * can grep or page through it. Files are private to the user (dir 0700, files 0600) and removed after a
 * week by the sweeper.
 *
 * On a store the fleet shares (PostgreSQL), each saved output is also copied into the store's `output`
 * rows (`shared`), so any instance can hand it out (`open`; serve's `GET /api/outputs/:id`). SQLite
 * keeps only the files: everyone reading that store reads this data dir too, and a 200 MB output would
 * only bloat the database file.
 */
export class OutputStore {
  readonly dir: string
  readonly #shared: StoredOutputs | undefined

  constructor(options: { dir: string; shared?: StoredOutputs }) {
    this.dir = resolve(options.dir)
    this.#shared = options.shared
  }

  /** Whether saved outputs are copied into a store other instances read. */
  get shared(): boolean {
    return this.#shared !== undefined
  }

  /**
   * Saves `text` and returns the file's absolute path; `owner` is the call it came from.
   *
   * 1. Create the store dir if needed.
   * 2. Write to `tool_<id>.tmp` in 1M-character slices through one reused buffer, so a 200 MB output is
   *    not held twice in memory; slices never split a surrogate pair.
   * 3. Rename to `tool_<id>`, so anyone holding the path only ever sees the complete output.
   * 4. On a shared store, copy the file into it (`share`) before returning, so the output is there
   *    for every instance by the time the call's record names it.
   * On failure the temp file is removed and the error says why the output could not be saved.
   */
  async write(text: string, owner?: OutputOwner): Promise<string> {
    const name = OUTPUT_PREFIX + newOutputId()
    const path = join(this.dir, name)
    const temp = `${path}.tmp`
    let handle: FileHandle | undefined
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 })
      handle = await open(temp, "wx", 0o600)
      await writeInSlices(handle, text)
      await handle.close()
      handle = undefined
      await rename(temp, path)
    } catch (error) {
      await handle?.close().catch(() => {})
      await rm(temp, { force: true }).catch(() => {})
      throw new Error(
        `The full tool output could not be saved to ${this.dir}: ${reason(error)}. ` +
          "Free up space or fix the permissions of that directory, or point TOOLBELT_DATA_DIR at a writable one.",
        { cause: error },
      )
    }
    await this.share(path, owner)
    return path
  }

  /**
   * Copies the saved file at `path` into the shared store; nothing without one, or for a file that is
   * not one of this store's (`<dir>/tool_<id>`: a tool's metadata names it, and only saved outputs
   * are shared). A file saved before is copied again only if its size changed (a background job's
   * log). A failure is logged, not thrown: the model reads the local file, so only other instances
   * miss the output, and the call must not fail for that.
   */
  async share(path: string, owner?: OutputOwner): Promise<void> {
    if (!this.#shared) return
    if (dirname(resolve(path)) !== this.dir || !OUTPUT_ID.test(basename(path))) return
    try {
      await copyToStore(this.#shared, path, owner)
    } catch (error) {
      log.warn("a saved output could not be copied into the shared store; other instances cannot show it", {
        path,
        error: error instanceof Error ? error.message : String(error),
      })
    }
  }

  /**
   * Saved output `id` (the file's name, `tool_<id>`, as the call's `outputPath` ends), as a stream:
   * from the shared store when it has it, else from this store's file; undefined when neither has it.
   */
  open(id: string): Promise<OpenedOutput | undefined> {
    return openOutput(id, this.dir, this.#shared)
  }

  /**
   * Removes saved output older than `maxAgeMs` (default 7 days) and returns the removed paths. Age comes
   * from the time in the name, or the modification time for `tool_*` entries whose name does not parse.
   * Other files are left alone, and a store that was never created is simply empty. Every entry is tried
   * even if one cannot be removed; the failures are reported together at the end. The shared store's
   * outputs of the same age go too (every instance sweeps them; whichever comes first removes them).
   */
  async sweep(options: SweepOptions = {}): Promise<string[]> {
    const now = options.now ?? Date.now()
    const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS
    let sharedError: unknown
    try {
      this.#shared?.sweep(now - maxAgeMs)
    } catch (error) {
      sharedError = error
    }
    const removed = await this.#sweepFiles(now, maxAgeMs)
    if (sharedError !== undefined) {
      throw new Error(
        `Could not remove the old outputs from the shared store: ${reason(sharedError)}. The next sweep will try again.`,
        { cause: sharedError },
      )
    }
    return removed
  }

  async #sweepFiles(now: number, maxAgeMs: number): Promise<string[]> {
    let names: string[]
    try {
      names = await readdir(this.dir)
    } catch (error) {
      if (codeOf(error) === "ENOENT") return []
      throw new Error(`Could not list the output store ${this.dir}: ${reason(error)}.`, { cause: error })
    }
    const removed: string[] = []
    const failures: string[] = []
    for (const name of names) {
      if (!name.startsWith(OUTPUT_PREFIX)) continue
      const path = join(this.dir, name)
      try {
        const born = timestampOf(name, now) ?? (await lstat(path)).mtimeMs
        if (now - born <= maxAgeMs) continue
        await rm(path, { recursive: true, force: true })
        removed.push(path)
      } catch (error) {
        if (codeOf(error) !== "ENOENT") failures.push(`${name} (${reason(error)})`)
      }
    }
    if (failures.length > 0) {
      throw new Error(
        `Could not remove ${failures.length} old output file(s) from ${this.dir}: ${failures.slice(0, 5).join(", ")}. ` +
          "Check the permissions of that directory; the next sweep will try again.",
      )
    }
    return removed
  }

  /**
   * Sweeps a minute after start, then hourly. The timers are unref'd so they never keep a process alive,
   * and a failed sweep is logged, not thrown: losing a cleanup must not take down the agent.
   */
  startSweeper(options: SweeperOptions = {}): { stop(): void } {
    const { firstDelayMs = 60_000, intervalMs = 3_600_000 } = options
    const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`))
    let running = false
    let stopped = false
    const run = async () => {
      if (running || stopped) return
      running = true
      try {
        await this.sweep()
      } catch (error) {
        log(
          `toolbelt: sweeping old tool output failed: ${error instanceof Error ? error.message : String(error)}`,
        )
      } finally {
        running = false
      }
    }
    let interval: NodeJS.Timeout | undefined
    const first = setTimeout(() => {
      if (stopped) return
      interval = setInterval(run, intervalMs)
      interval.unref()
      void run()
    }, firstDelayMs)
    first.unref()
    return {
      stop() {
        stopped = true
        clearTimeout(first)
        if (interval !== undefined) clearInterval(interval)
      },
    }
  }
}

async function writeInSlices(handle: FileHandle, text: string): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(BUFFER_BYTES, Math.max(1, text.length * 3)))
  let start = 0
  while (start < text.length) {
    const end = safeBoundary(text, Math.min(start + CHUNK_CHARS, text.length))
    const length = buffer.write(text.slice(start, end))
    let offset = 0
    while (offset < length) {
      const { bytesWritten } = await handle.write(buffer, offset, length - offset)
      offset += bytesWritten
    }
    start = end
  }
}

function codeOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
}

/** A cause a person can act on, with the raw error kept for the rest. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  switch (codeOf(error)) {
    case "ENOSPC":
      return `the disk is full (${message})`
    case "EDQUOT":
      return `the disk quota is exhausted (${message})`
    case "EACCES":
    case "EPERM":
      return `permission denied (${message})`
    case "EROFS":
      return `the file system is read-only (${message})`
    case "ENOTDIR":
    case "EEXIST":
      return `a file is in the way of the directory (${message})`
    default:
      return message
  }
}
