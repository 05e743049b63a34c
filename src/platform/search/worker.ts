// A fallback worker thread: walks the directories the main thread hands it, depth first, and gives half of
// what is left back when another worker is idle. Messages are the protocol in `protocol.ts`.
import { statSync } from "node:fs"
import { parentPort } from "node:worker_threads"
import { monotonicMs } from "../util/clock.ts"
import type { FromWorker, ToWorker } from "./protocol.ts"
import { CANCEL, HUNGRY, RUNNING, STOP } from "./protocol.ts"
import { TopHits } from "./results.ts"
import { SearchTask } from "./task.ts"
import type { DirTask } from "./walk.ts"

/** Post what was found at least this often (a timed-out search keeps what was posted). */
const FLUSH_MS = 25
const FLUSH_COUNT = 512

const port = parentPort!
let current: { id: number; task: SearchTask; shared: Int32Array } | undefined

function post(message: FromWorker): void {
  port.postMessage(message)
}

port.on("message", (message: ToWorker) => {
  try {
    if (message.type === "stat") {
      const top = new TopHits(message.limit)
      for (const path of message.paths.split("\0")) {
        const stats = statSync(path, { throwIfNoEntry: false })
        if (stats) top.add({ path, mtimeMs: stats.mtimeMs, count: 0 })
      }
      const items = top.items
      post({
        type: "stats",
        id: message.id,
        paths: items.map((item) => item.path),
        mtimes: items.map((item) => item.mtimeMs),
        existing: top.files,
      })
      return
    }
    if (message.type === "search") {
      const shared = new Int32Array(message.shared)
      const stopped = () => Atomics.load(shared, 0) !== RUNNING
      current = { id: message.id, task: new SearchTask(message.spec, stopped), shared }
      return
    }
    if (!current || current.id !== message.id) return
    run(current, [...message.dirs])
  } catch (error) {
    post({ type: "error", id: message.id, message: (error as Error).stack ?? String(error) })
    post({ type: "idle", id: message.id })
  }
})

function run(search: { id: number; task: SearchTask; shared: Int32Array }, stack: DirTask[]): void {
  const { id, task, shared } = search
  let flushed = monotonicMs()
  const flush = () => {
    if (task.unsent === 0) return
    post({ type: "found", id, ...task.take() })
    flushed = monotonicMs()
  }
  while (stack.length > 0) {
    const state = Atomics.load(shared, 0)
    if (state === CANCEL) break
    if (state === STOP) {
      flush()
      break
    }
    const dir = stack.pop()!
    const subdirs = task.walk(dir)
    for (let k = subdirs.length - 1; k >= 0; k--) stack.push(subdirs[k]!)
    if (task.unsent >= FLUSH_COUNT || monotonicMs() - flushed > FLUSH_MS) flush()
    // Another worker has nothing to do: give it the shallowest half of what is left.
    if (stack.length >= 2 && Atomics.load(shared, HUNGRY) > 0) {
      post({ type: "donate", id, dirs: stack.splice(0, stack.length >> 1) })
    }
  }
  if (Atomics.load(shared, 0) !== CANCEL) flush()
  post({ type: "idle", id })
}
