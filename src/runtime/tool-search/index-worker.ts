// A worker thread that holds one tool index (off-thread-index.ts starts it): it builds the index from
// the documents it is started with, says when it is ready, then answers searches until it is ended.
import { parentPort, workerData } from "node:worker_threads"
import { buildToolIndex, type SearchDoc } from "./rank/index.ts"

/** A search put to the worker; `accept` lists the names it may answer with (all when absent). */
export interface SearchRequest {
  readonly id: number
  readonly query: string
  readonly limit: number
  readonly accept?: readonly string[]
}

const index = buildToolIndex(workerData as readonly SearchDoc[])
parentPort!.postMessage({ ready: true, size: index.size })
parentPort!.on("message", (request: SearchRequest) => {
  try {
    const accept = request.accept ? new Set(request.accept) : undefined
    const hits = index.search(request.query, request.limit, accept ? (name) => accept.has(name) : undefined)
    parentPort!.postMessage({ id: request.id, hits })
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: String(error) })
  }
})
