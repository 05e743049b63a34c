// The newest of many files, stat'ed while the caller goes on (the ripgrep backend stats what `rg --files`
// prints while rg is still walking): the first ones in this thread, the rest on the worker threads. Each
// worker sends back only the newest of its batch.
import { statSync } from "node:fs"
import { type PooledWorker, pool } from "./pool.ts"
import { newestFirst, TopHits } from "./results.ts"

/** Paths per message to a worker. */
const BATCH = 2048

let nextBatch = 1

interface Lane {
  readonly pooled: PooledWorker
  /** Batches sent and not answered. */
  outstanding: number
  /** Give the worker back to the pool once it has answered everything. */
  releasing: boolean
}

export interface Stamped {
  readonly path: string
  readonly mtimeMs: number
}

export class StatBatches {
  readonly #threads: number
  readonly #top: TopHits<Stamped>
  /** Files that exist, of those stat'ed by workers (the local ones are counted by `#top`). */
  #existing = 0
  #pending: string[] = []
  /** Files stat'ed in this thread as they were added. */
  #here = 0
  #lanes: Lane[] | undefined
  #turn = 0
  readonly #answers: Promise<void>[] = []
  readonly #waiting = new Map<number, { lane: Lane; resolve: () => void; reject: (error: Error) => void }>()

  /** `threads`: workers to use (0: stat everything in this thread); `limit`: newest files kept. */
  constructor(threads: number, limit: number) {
    this.#threads = threads
    this.#top = new TopHits(limit)
  }

  /**
   * The first `BATCH` files are stat'ed at once, here (while rg is still running, this thread mostly
   * waits for its output, and a short list is then done when rg is); the rest go to the workers in batches.
   */
  add(path: string): void {
    if (this.#threads === 0 || this.#here < BATCH) {
      this.#here++
      this.#stat(path)
      return
    }
    this.#pending.push(path)
    if (this.#pending.length >= BATCH) this.#send()
  }

  #stat(path: string): void {
    const stats = statSync(path, { throwIfNoEntry: false })
    if (stats) this.#top.add({ path, mtimeMs: stats.mtimeMs })
  }

  /** The newest `limit` files added (sorted), and how many of all those added still exist. */
  async done(): Promise<{ top: Stamped[]; total: number }> {
    for (const path of this.#pending) this.#stat(path)
    this.#pending = []
    try {
      await Promise.all(this.#answers)
    } finally {
      this.release()
    }
    const top = this.#top.items
    return {
      top: this.#top.limit === Infinity ? top.sort(newestFirst) : top,
      total: this.#top.files + this.#existing,
    }
  }

  /** Gives the workers back to the pool, each once it has answered the batches it holds. */
  release(): void {
    for (const lane of this.#lanes ?? []) {
      lane.releasing = true
      if (lane.outstanding === 0) pool.release(lane.pooled)
    }
    this.#lanes = undefined
  }

  #send(): void {
    const paths = this.#pending
    this.#pending = []
    this.#lanes ??= pool.acquire(this.#threads).map((pooled) => this.#lane(pooled))
    const lane = this.#lanes[this.#turn++ % this.#lanes.length]!
    const id = nextBatch++
    lane.outstanding++
    this.#answers.push(
      new Promise<void>((resolve, reject) => {
        this.#waiting.set(id, { lane, resolve, reject })
        lane.pooled.post({ type: "stat", id, paths: paths.join("\0"), limit: this.#top.limit })
      }),
    )
  }

  #lane(pooled: PooledWorker): Lane {
    const lane: Lane = { pooled, outstanding: 0, releasing: false }
    pooled.onMessage = (message) => {
      if (message.type !== "stats") return
      const waiting = this.#waiting.get(message.id)
      if (!waiting) return
      this.#waiting.delete(message.id)
      this.#existing += message.existing
      for (let k = 0; k < message.paths.length; k++) {
        this.#top.keep({ path: message.paths[k]!, mtimeMs: message.mtimes[k]! })
      }
      lane.outstanding--
      if (lane.releasing && lane.outstanding === 0) pool.release(pooled)
      waiting.resolve()
    }
    pooled.onDeath = (error) => {
      for (const [id, waiting] of this.#waiting) {
        if (waiting.lane !== lane) continue
        this.#waiting.delete(id)
        waiting.reject(error)
      }
    }
    return lane
  }
}
