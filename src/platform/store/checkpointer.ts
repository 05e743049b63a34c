import { Worker } from "node:worker_threads"

/** Commits a connection makes before it gets a background checkpointer (a one-shot CLI call never does). */
export const START_AFTER_COMMITS = 64

/** How long the worker lets commits gather before it checkpoints them. */
export const CHECKPOINT_INTERVAL_MS = 50

/** Slots of the shared state: the commit counter the worker waits on, and the stop flag. */
export const COMMITS = 0
export const STOP = 1

export interface CheckpointWorkerData {
  readonly path: string
  readonly state: SharedArrayBuffer
  readonly intervalMs: number
}

/**
 * Moves WAL checkpoints off the writing thread.
 *
 * A checkpoint copies the WAL into the database and fsyncs both; SQLite runs it inside the `COMMIT`
 * that crosses `wal_autocheckpoint`, so one call in a few hundred waited 10–30 ms on the disk (two
 * thirds of all commit time when a call stores a 40 KB output). Once the connection commits often, a
 * worker thread with its own connection runs `wal_checkpoint(PASSIVE)` shortly after commits, which
 * never blocks the writer. The connection keeps its own autocheckpoint, which now finds the frames
 * already copied and synced: it stays the bound on the WAL's size, and the whole guarantee if the
 * worker cannot start or dies.
 *
 * The writer's cost per commit is one atomic add and a notify (no message, no syscall while the
 * worker is not waiting).
 */
export class Checkpointer {
  readonly #path: string
  readonly #startAfter: number
  readonly #intervalMs: number
  #commits = 0
  #state: Int32Array | undefined
  #worker: Worker | undefined
  /** A start was tried (once per connection: a worker that cannot start is not retried). */
  #tried = false
  #closed = false

  readonly #onRunning: (running: boolean) => void

  /** `onRunning` hears when the worker takes over checkpoints and when it stops (closed or died). */
  constructor(
    path: string,
    options: { startAfter?: number; intervalMs?: number; onRunning?: (running: boolean) => void } = {},
  ) {
    this.#path = path
    this.#onRunning = options.onRunning ?? (() => {})
    this.#startAfter = options.startAfter ?? START_AFTER_COMMITS
    this.#intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS
  }

  /** Called after each commit. */
  committed(): void {
    const state = this.#state
    if (state) {
      Atomics.add(state, COMMITS, 1)
      Atomics.notify(state, COMMITS)
      return
    }
    if (++this.#commits >= this.#startAfter) this.start()
  }

  /**
   * Starts the worker now, if it never was. A long-lived host calls this while it is idle, before its
   * first calls: starting a worker thread (its own V8 and modules) costs tens of ms of CPU, which, left
   * to the 64th commit, fell in `serve`'s first second under load and queued its calls behind it
   * (bench/serve-load.bench.ts: event latency p50 7 ms became 30-60 ms for half a second).
   */
  start(): void {
    if (this.#tried || this.#closed) return
    this.#tried = true
    this.#start()
  }

  /** Tells the worker to close its connection and end; the writer never waits for it. */
  close(): void {
    this.#closed = true
    const state = this.#state
    if (!state) return
    this.#state = undefined
    this.#worker = undefined
    Atomics.store(state, STOP, 1)
    Atomics.notify(state, COMMITS)
  }

  #start(): void {
    // Without Atomics.waitAsync (older runtimes) the worker could only poll: keep checkpoints inline.
    if (typeof Atomics.waitAsync !== "function") return
    const buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)
    const data: CheckpointWorkerData = { path: this.#path, state: buffer, intervalMs: this.#intervalMs }
    const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
    let worker: Worker
    try {
      worker = new Worker(new URL(`./checkpoint-worker${extension}`, import.meta.url), {
        workerData: data,
        resourceLimits: { maxYoungGenerationSizeMb: 1 },
      })
    } catch {
      return
    }
    // The worker never keeps the process alive, and its death only returns checkpoints to the writer.
    worker.unref()
    const lost = () => {
      if (this.#worker === worker) {
        this.#worker = undefined
        this.#state = undefined
        this.#onRunning(false)
      }
    }
    worker.on("error", lost)
    worker.on("exit", lost)
    this.#worker = worker
    this.#state = new Int32Array(buffer)
    Atomics.add(this.#state, COMMITS, 1)
    this.#onRunning(true)
  }
}
