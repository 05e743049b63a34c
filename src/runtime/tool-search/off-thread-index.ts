// The tool index in a worker thread: building it over hundreds of tools takes long enough (~1-2 s
// over 700 real MCP tools) to stall the event loop that answers tools/list, so it is built, and
// searched, off the main thread.

import { Worker } from "node:worker_threads"
import { asSentence } from "../../platform/text/sentence.ts"
import type { SearchRequest } from "./index-worker.ts"
import type { SearchDoc, SearchHit } from "./rank/types.ts"

/** A tool index answering asynchronously (from a worker, or in process where workers cannot start). */
export interface AsyncToolIndex {
  readonly size: number
  /** Best first, at most `limit`, only names in `accept` when given. */
  search(query: string, limit: number, accept?: ReadonlySet<string>): Promise<SearchHit[]>
  /** Ends the worker; searches after it fail. */
  close(): void
}

type Answer = { id: number; hits: SearchHit[] } | { id: number; error: string }

/**
 * Builds the index over `docs` in a worker of its own and resolves once it is ready. The worker does
 * not keep the process alive. Where it cannot start or fails to build, the index is built here.
 */
export async function buildIndexOffThread(docs: readonly SearchDoc[]): Promise<AsyncToolIndex> {
  try {
    return await inWorker(docs)
  } catch {
    return await inProcess(docs)
  }
}

async function inProcess(docs: readonly SearchDoc[]): Promise<AsyncToolIndex> {
  // Imported here: the ranking builds its tables as it loads, which a process that never searches skips.
  const { buildToolIndex } = await import("./rank/index.ts")
  const index = buildToolIndex(docs)
  return {
    size: index.size,
    search: async (query, limit, accept) =>
      index.search(query, limit, accept ? (name) => accept.has(name) : undefined),
    close() {},
  }
}

function inWorker(docs: readonly SearchDoc[]): Promise<AsyncToolIndex> {
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js"
  const worker = new Worker(new URL(`./index-worker${extension}`, import.meta.url), { workerData: docs })
  worker.unref()
  const waiting = new Map<number, { resolve: (hits: SearchHit[]) => void; reject: (error: Error) => void }>()
  let next = 0
  let ended: Error | undefined
  const end = (error: Error) => {
    ended ??= error
    for (const { reject } of waiting.values()) reject(ended)
    waiting.clear()
  }
  return new Promise((resolve, reject) => {
    worker.once("message", (ready: { ready: true; size: number }) => {
      worker.on("message", (answer: Answer) => {
        const asked = waiting.get(answer.id)
        if (!asked) return
        waiting.delete(answer.id)
        if ("error" in answer) asked.reject(new Error(`The tool index failed: ${asSentence(answer.error)}`))
        else asked.resolve(answer.hits)
      })
      resolve({
        size: ready.size,
        search(query, limit, accept) {
          if (ended) return Promise.reject(ended)
          const id = next++
          const request: SearchRequest = { id, query, limit, ...(accept ? { accept: [...accept] } : {}) }
          return new Promise<SearchHit[]>((resolveHits, rejectHits) => {
            waiting.set(id, { resolve: resolveHits, reject: rejectHits })
            worker.postMessage(request)
          })
        },
        close() {
          end(new Error("The tool index was closed."))
          void worker.terminate()
        },
      })
    })
    worker.once("error", (error) => {
      end(error)
      reject(error)
    })
    worker.once("exit", (code) => {
      const error = new Error(`The tool index worker exited (code ${code}).`)
      end(error)
      reject(error)
    })
  })
}
