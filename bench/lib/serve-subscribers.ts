// The serve-load bench's /events subscribers, run off the bench's main thread: worker threads of their
// own, so the event loop that reads the events is not the one that also drives 100 sessions' HTTP
// calls. A subscriber that reads late measures its own queue, not the server's; here each worker's
// loop does nothing but read and check frames, and its loop delay is reported beside the latency.
//
// Each subscriber checks what it got: ids one after another with none missing or repeated, and for
// every call exactly one `completed` update. Its latency for a call: when the chunk holding the call's
// `completed` update was read, minus the call's `time.end` (Date.now() in both processes: one clock).
import { get, type IncomingMessage } from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads"
import { readFrames } from "./sse-frames.ts"

export interface SubscriberReport {
  /** Events with an id, in the order received. */
  readonly events: number
  /** Calls whose `completed` update never came. */
  readonly lost: number
  /** `completed` updates beyond one per call, and ids received more than once. */
  readonly duplicated: number
  /** Places where an id did not follow the one before it. */
  readonly gaps: number
  /** `server.sync` events (the server could not hand on everything) and `server.closed` ones. */
  readonly syncs: number
  readonly closed: number
  /** One per `completed` update, ms. */
  readonly latencies: number[]
  /** The call's `time.end` (epoch ms) of each of `latencies`. */
  readonly ends: number[]
}

export interface SubscriberWorkers {
  /** Waits until every subscriber saw every call complete (or `drainMs` passed), then reports and ends. */
  finish(total: number, drainMs: number): Promise<{ reports: SubscriberReport[]; loopDelayP99Ms: number }>
  /** Ends the workers at once (on a failure elsewhere). */
  stop(): Promise<void>
}

interface WorkerSetup {
  readonly url: string
  readonly token: string
  readonly count: number
}

type WorkerReply =
  | { readonly type: "ready" }
  | { readonly type: "done"; readonly reports: SubscriberReport[]; readonly loopDelayP99Ms: number }
  | { readonly type: "failed"; readonly error: string }

/**
 * `count` subscribers of `url`/events spread over `threads` worker threads; resolves once every one
 * of them is connected (has its `server.connected` event), so no event after that can be missed.
 */
export async function startSubscribers(options: {
  url: string
  token: string
  count: number
  threads: number
}): Promise<SubscriberWorkers> {
  const threads = Math.max(1, Math.min(options.threads, options.count))
  const workers = Array.from({ length: threads }, (_, index) => {
    const count = Math.floor(options.count / threads) + (index < options.count % threads ? 1 : 0)
    const setup: WorkerSetup = { url: options.url, token: options.token, count }
    return new Worker(new URL(import.meta.url), { workerData: setup })
  })
  const next = (worker: Worker) =>
    new Promise<WorkerReply>((resolve, reject) => {
      const onMessage = (reply: WorkerReply) => {
        worker.off("error", reject)
        if (reply.type === "failed") reject(new Error(`A subscriber failed: ${reply.error}`))
        else resolve(reply)
      }
      worker.once("message", onMessage)
      worker.once("error", reject)
    })
  const stop = async () => {
    await Promise.all(workers.map((worker) => worker.terminate()))
  }
  try {
    await Promise.all(workers.map(next))
  } catch (error) {
    await stop()
    throw error
  }
  return {
    stop,
    async finish(total, drainMs) {
      const done = workers.map(next)
      for (const worker of workers) worker.postMessage({ total, drainMs })
      const replies = (await Promise.all(done)) as Extract<WorkerReply, { type: "done" }>[]
      await stop()
      return {
        reports: replies.flatMap((reply) => reply.reports),
        loopDelayP99Ms: Math.max(...replies.map((reply) => reply.loopDelayP99Ms)),
      }
    },
  }
}

/** One subscriber, inside a worker. */
interface Subscriber {
  readonly seqs: number[]
  readonly completed: Map<string, number>
  readonly latencies: number[]
  readonly ends: number[]
  syncs: number
  closed: number
  close(): void
}

/** One subscriber: node:http, whose response is read as it comes (fetch's web streams cost more CPU). */
async function subscribe(url: string, token: string): Promise<Subscriber> {
  const abort = new AbortController()
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = get(
      `${url}/events`,
      { headers: { accept: "text/event-stream", authorization: `Bearer ${token}` }, signal: abort.signal },
      resolve,
    )
    request.on("error", reject)
  })
  if (response.statusCode !== 200) throw new Error(`GET /events answered ${response.statusCode}`)
  response.on("error", () => {})
  let connected: () => void = () => {}
  const hello = new Promise<void>((resolve) => {
    connected = resolve
  })
  const subscriber: Subscriber = {
    seqs: [],
    completed: new Map(),
    latencies: [],
    ends: [],
    syncs: 0,
    closed: 0,
    close: () => abort.abort(),
  }
  readFrames(response, (frame, readAt) => {
    const at = frame.indexOf("data: ")
    if (at < 0) return
    const id = /^id: \S+\.(\d+)\n$/.exec(frame.slice(0, at))
    // The data is one line (JSON.stringify's). Only what a check reads is parsed: the server's own
    // events, and an update that may be a completed one (its state says `"status":"completed"`);
    // parsing every frame cost these threads a third of all the bench's CPU, on the cores the server uses.
    const data = frame.slice(at + 6)
    const known = data.startsWith('{"type":"')
    if (!known || data.startsWith('{"type":"server.')) {
      const { type } = JSON.parse(data) as { type: string }
      if (type === "server.connected") connected()
      if (type === "server.sync") subscriber.syncs++
      if (type === "server.closed") subscriber.closed++
    }
    if (!id) return
    subscriber.seqs.push(Number(id[1]))
    if (known && !data.startsWith('{"type":"message.part.updated"')) return
    if (!data.includes('"status":"completed"')) return
    const event = JSON.parse(data) as { type: string; properties: any }
    if (event.type !== "message.part.updated") return
    const { part } = event.properties
    if (part.state.status !== "completed") return
    subscriber.completed.set(part.callID, (subscriber.completed.get(part.callID) ?? 0) + 1)
    subscriber.latencies.push(readAt - part.state.time.end)
    subscriber.ends.push(part.state.time.end)
  })
  await hello
  return subscriber
}

function reportOf(subscriber: Subscriber, total: number): SubscriberReport {
  let duplicated = 0
  for (const count of subscriber.completed.values()) duplicated += count - 1
  duplicated += subscriber.seqs.length - new Set(subscriber.seqs).size
  let gaps = 0
  subscriber.seqs.forEach((seq, index) => {
    if (index > 0 && seq !== subscriber.seqs[index - 1]! + 1) gaps++
  })
  return {
    events: subscriber.seqs.length,
    lost: total - subscriber.completed.size,
    duplicated,
    gaps,
    syncs: subscriber.syncs,
    closed: subscriber.closed,
    latencies: subscriber.latencies,
    ends: subscriber.ends,
  }
}

async function runWorker(setup: WorkerSetup): Promise<void> {
  const port = parentPort!
  const delay = monitorEventLoopDelay({ resolution: 5 })
  try {
    const subscribers = await Promise.all(
      Array.from({ length: setup.count }, () => subscribe(setup.url, setup.token)),
    )
    delay.enable()
    port.postMessage({ type: "ready" } satisfies WorkerReply)
    const { total, drainMs } = await new Promise<{ total: number; drainMs: number }>((resolve) =>
      port.once("message", resolve),
    )
    const started = Date.now()
    while (subscribers.some((subscriber) => subscriber.completed.size < total)) {
      if (Date.now() - started > drainMs) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    delay.disable()
    const reports = subscribers.map((subscriber) => reportOf(subscriber, total))
    for (const subscriber of subscribers) subscriber.close()
    port.postMessage({
      type: "done",
      reports,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
    } satisfies WorkerReply)
  } catch (error) {
    port.postMessage({ type: "failed", error: String(error) } satisfies WorkerReply)
  }
}

if (!isMainThread && (workerData as WorkerSetup | undefined)?.url) await runWorker(workerData as WorkerSetup)
