import { Worker } from "node:worker_threads"
import * as Tool from "../../runtime/tool/index.ts"

/** A worker's V8 heap limits (Node's `resourceLimits`). */
export interface HeapLimits {
  readonly maxYoungGenerationSizeMb: number
  readonly maxOldGenerationSizeMb: number
}

/** What a worker script posts back: its result, or the message a ToolFailure gives the model. */
export type WorkerAnswer<T> = { readonly value: T } | { readonly failure: string }

// How often the memory outside the worker's heap is looked at: a decoder writing ~100 MB/s grows by
// a few MB between two looks.
const WATCH_MS = 20

/**
 * Runs one job in a worker thread of its own and answers what it posts, so a decoder or converter is
 * bounded by what it produces, not only by what it reads:
 * - its heap by `limits` (past them: a ToolFailure with `outOfMemory`);
 * - its memory outside the heap (typed arrays: a decompressed stream, an image), which `limits` do not
 *   cover, by `maxExternalMb`, checked while the worker runs (past it: terminated, `tooMuchExternal`);
 * - its time by `signal` (the call's timeout and abort): the worker is terminated, and the promise
 *   rejects with the signal's reason, at once, even while the worker is busy in one synchronous loop.
 * The worker's memory is given back when it ends, and the event loop keeps running meanwhile.
 */
export function runOffThread<T>(input: {
  script: URL
  data: unknown
  limits: HeapLimits
  signal?: AbortSignal
  maxExternalMb?: number
  outOfMemory: () => string
  tooMuchExternal?: () => string
}): Promise<T> {
  const { script, data, limits, signal, maxExternalMb } = input
  if (signal?.aborted) return Promise.reject(signal.reason)
  const worker = new Worker(script, { workerData: data, resourceLimits: limits })
  return new Promise<T>((resolve, reject) => {
    let settled = false
    let watch: NodeJS.Timeout | undefined
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      signal?.removeEventListener("abort", abort)
      if (watch) clearInterval(watch)
      void worker.terminate()
      outcome()
    }
    const abort = () => settle(() => reject(signal!.reason))
    signal?.addEventListener("abort", abort, { once: true })
    if (maxExternalMb !== undefined) {
      const limit = maxExternalMb * 1024 * 1024
      const overLimit = externalMemoryProbe(worker, limit)
      let asking = false
      watch = setInterval(() => {
        if (asking) return
        asking = true
        void overLimit().then((over) => {
          asking = false
          if (over) settle(() => reject(new Tool.ToolFailure((input.tooMuchExternal ?? input.outOfMemory)())))
        })
      }, WATCH_MS)
    }
    worker.once("message", (answer: WorkerAnswer<T>) =>
      settle(() =>
        "failure" in answer ? reject(new Tool.ToolFailure(answer.failure)) : resolve(answer.value),
      ),
    )
    worker.once("error", (error: Error & { code?: string }) =>
      settle(() =>
        reject(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? new Tool.ToolFailure(input.outOfMemory()) : error),
      ),
    )
    worker.once("exit", (code) =>
      settle(() =>
        reject(new Error(`The worker ${script.pathname} exited (code ${code}) without an answer.`)),
      ),
    )
  })
}

/**
 * Whether the worker holds more than `limit` bytes outside its heap. Node 22.16+ answers the worker's
 * own heap statistics even while it runs a synchronous loop; on an older Node, the growth of the
 * process's resident memory since the worker started stands in for it.
 */
function externalMemoryProbe(worker: Worker, limit: number): () => Promise<boolean> {
  const ask = (worker as Worker & { getHeapStatistics?: () => Promise<{ external_memory?: number }> })
    .getHeapStatistics
  if (typeof ask === "function") {
    return () =>
      ask.call(worker).then(
        (stats) => (stats.external_memory ?? 0) > limit,
        () => false,
      )
  }
  const start = process.memoryUsage.rss()
  return () => Promise.resolve(process.memoryUsage.rss() - start > limit)
}
