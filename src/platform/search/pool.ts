// The fallback's worker threads, kept between searches (starting one costs tens of milliseconds). Idle
// workers do not keep the process alive and end after a while.
import { Worker } from "node:worker_threads"
import type { FromWorker, ToWorker } from "./protocol.ts"

const IDLE_MS = 30_000
const YOUNG_MB = 2

/** A worker and whoever listens to it now. */
export class PooledWorker {
  readonly worker: Worker
  /** The search using it receives its messages here. */
  onMessage: ((message: FromWorker) => void) | undefined
  /** It died (an uncaught error): the search using it learns here. */
  onDeath: ((error: Error) => void) | undefined
  dead = false
  /** It has sent a message (so it did start). */
  started = false

  constructor() {
    const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
    // A small young generation keeps each worker's memory low (its garbage is short-lived).
    this.worker = new Worker(new URL(`./worker${extension}`, import.meta.url), {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB },
    })
    this.worker.on("message", (message: FromWorker) => {
      this.started = true
      this.onMessage?.(message)
    })
    const die = (error: Error) => {
      if (this.dead) return
      this.dead = true
      pool.forget(this)
      this.onDeath?.(error)
    }
    this.worker.on("error", die)
    this.worker.on("exit", (code) => die(new Error(`The search worker exited (code ${code}).`)))
  }

  post(message: ToWorker): void {
    this.worker.postMessage(message)
  }
}

class WorkerPool {
  #idle: PooledWorker[] = []
  #timer: NodeJS.Timeout | undefined

  /** `count` workers for one search (kept alive by the process until released). */
  acquire(count: number): PooledWorker[] {
    const out: PooledWorker[] = []
    while (out.length < count) out.push(this.#idle.pop() ?? new PooledWorker())
    for (const pooled of out) pooled.worker.ref()
    return out
  }

  /** Takes a worker back once it is idle for its last search. */
  release(pooled: PooledWorker): void {
    pooled.onMessage = undefined
    pooled.onDeath = undefined
    if (pooled.dead) return
    pooled.worker.unref()
    this.#idle.push(pooled)
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => this.close(), IDLE_MS)
    this.#timer.unref()
  }

  /** Ends a worker that did not stop when told (a runaway regex). */
  discard(pooled: PooledWorker): void {
    pooled.onMessage = undefined
    pooled.onDeath = undefined
    pooled.dead = true
    this.forget(pooled)
    void pooled.worker.terminate()
  }

  forget(pooled: PooledWorker): void {
    this.#idle = this.#idle.filter((other) => other !== pooled)
  }

  /** Ends every idle worker. */
  close(): void {
    const idle = this.#idle
    this.#idle = []
    for (const pooled of idle) {
      pooled.dead = true
      void pooled.worker.terminate()
    }
  }
}

export const pool = new WorkerPool()
