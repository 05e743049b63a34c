import { close, mkdirSync, openSync, write } from "node:fs"
import { rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { newOutputId, OUTPUT_PREFIX } from "../../fs/output-id.ts"

/** Output is gathered into blocks this large before a write: a pipe delivers it 4 KB at a time. */
const BLOCK = 256 * 1024
/** Blocks being written at once before the reader is asked to pause. */
const MAX_IN_FLIGHT = 8

/**
 * An append-only file in the managed output store, written while a command still runs: a command can
 * print gigabytes, so its output goes to disk as it arrives instead of being gathered in memory.
 *
 * Chunks are copied into 256 KB blocks from a small pool and written at explicit offsets, so the cost per
 * pipe read is a memcpy and the memory held is at most MAX_IN_FLIGHT + 1 blocks, whatever the volume.
 *
 * The name follows the store's scheme (`tool_<id>`), so the store's sweeper ages it out like any other
 * saved output. A foreground command's file is written as `tool_<id>.tmp` and renamed when complete,
 * so whoever is given the path sees all of it; a background job's log is written in place, because
 * its path is handed out while the job runs.
 */
export class Spool {
  /** Where the complete output will be (and, for an in-place spool, already is). */
  readonly path: string
  readonly #writing: string
  readonly #fd: number
  readonly #free: Buffer[] = []
  #block: Buffer | undefined
  #used = 0
  /** Bytes handed over so far, and the file offset of the current block. */
  #bytes = 0
  #offset = 0
  #inFlight = 0
  #waiters: (() => void)[] = []
  #drainers: (() => void)[] = []
  #error: Error | undefined
  #closed = false

  private constructor(path: string, writing: string, fd: number) {
    this.path = path
    this.#writing = writing
    this.#fd = fd
  }

  /** Creates the file (and the store dir, private to the user); throws if that is impossible. */
  static open(dir: string, options: { inPlace?: boolean } = {}): Spool {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const path = join(dir, OUTPUT_PREFIX + newOutputId())
    const writing = options.inPlace ? path : `${path}.tmp`
    return new Spool(path, writing, openSync(writing, "wx", 0o600))
  }

  /** Bytes handed to `write` so far. */
  get bytes(): number {
    return this.#bytes
  }

  /** The first write error, if any (the disk filled up, ...); later output is dropped. */
  get error(): Error | undefined {
    return this.#error
  }

  /** Appends `chunk`; false means the disk is behind: stop reading until `onDrain`. */
  write(chunk: Buffer): boolean {
    if (this.#error || this.#closed) return true
    this.#bytes += chunk.length
    let at = 0
    while (at < chunk.length) {
      this.#block ??= this.#free.pop() ?? Buffer.allocUnsafe(BLOCK)
      const copied = chunk.copy(this.#block, this.#used, at)
      this.#used += copied
      at += copied
      if (this.#used === BLOCK) this.#submit()
    }
    return this.#inFlight < MAX_IN_FLIGHT
  }

  /** Calls `listener` once the writes in flight have dropped below the limit. */
  onDrain(listener: () => void): void {
    if (this.#inFlight < MAX_IN_FLIGHT || this.#error) queueMicrotask(listener)
    else this.#drainers.push(listener)
  }

  /** Resolves when everything written so far is in the file. */
  flush(): Promise<void> {
    if (this.#used > 0) this.#submit()
    if (this.#inFlight === 0) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  /** Closes the file and makes it visible under `path`; rejects with the reason if it is incomplete. */
  async finish(): Promise<string> {
    await this.flush()
    await this.#close()
    if (this.#error) {
      await rm(this.#writing, { force: true }).catch(() => {})
      throw this.#error
    }
    if (this.#writing !== this.path) await rename(this.#writing, this.path)
    return this.path
  }

  /** Closes and removes the file (the output turned out small enough to show whole). */
  async discard(): Promise<void> {
    this.#used = 0
    await this.flush()
    await this.#close()
    await rm(this.#writing, { force: true }).catch(() => {})
  }

  #submit(): void {
    const block = this.#block!
    const length = this.#used
    const position = this.#offset
    this.#block = undefined
    this.#used = 0
    this.#offset += length
    this.#inFlight++
    const done = (error: Error | null, written?: number) => {
      if (!error && written !== undefined && written < length) {
        // A short write (rare, e.g. a signal): write the rest at its offset.
        write(this.#fd, block, written, length - written, position + written, (e, w) =>
          done(e, w === undefined ? undefined : written + w),
        )
        return
      }
      if (error) this.#error ??= error
      this.#inFlight--
      if (this.#free.length < MAX_IN_FLIGHT) this.#free.push(block)
      if (this.#inFlight < MAX_IN_FLIGHT) for (const drainer of this.#drainers.splice(0)) drainer()
      if (this.#inFlight === 0) for (const waiter of this.#waiters.splice(0)) waiter()
    }
    write(this.#fd, block, 0, length, position, done)
  }

  #close(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    this.#closed = true
    return new Promise((resolve) =>
      close(this.#fd, (error) => {
        if (error) this.#error ??= error
        resolve()
      }),
    )
  }
}
