// `toolbelt serve` under load: SESSIONS sessions making CALLS calls each through the HTTP API, all at
// once, while SUBSCRIBERS clients follow /events.
// 1. Start `toolbelt serve --port 0` as a subprocess in a temp project, through bin/toolbelt.js run as
//    a program (its shell lines exec Node with serve's V8 flags, so the RSS is the server's alone;
//    NODE_OPTIONS is passed on, to compare V8 flags), and sample its RSS from /proc while the load runs.
// 2. Connect the subscribers, then create the sessions and run every session's calls in parallel
//    (each session's calls one after another: `read` of a file of LINES lines, each with another
//    `limit`, so the loop guard sees no repeated call).
// 3. Each subscriber checks what it got: ids one after another with none missing or repeated, and for
//    every call exactly one `completed` update. Event latency: when the subscriber read a call's
//    `completed` update, minus the call's `time.end` (the end of the tool, before the journal commit
//    that must precede the event).
// Reports calls/s, lost and duplicated events (must be 0), latency p50/p99/max, and the server's RSS
// (peak sampled, and the kernel's high-water mark), split into anonymous memory (the heaps: V8's and
// malloc's) and file pages (mostly the node binary's code).
// Run: node bench/serve-load.bench.ts   (SESSIONS=10 CALLS=10 for a quick look; LINES=1000 for 45 KB
// outputs, which fill the server's event log to its byte budget)

import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type Serve, spawnServe } from "./lib/serve-process.ts"
import { readFrames } from "./lib/sse-frames.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BIN = join(ROOT, "bin", "toolbelt.js")
const SESSIONS = Number(process.env.SESSIONS ?? 100)
const CALLS = Number(process.env.CALLS ?? 100)
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 10)
/** Lines of the file each call reads (3: a small output; 1000: about 45 KB). */
const LINES = Number(process.env.LINES ?? 3)
/** How long the subscribers may take to see the last event after the last call returned. */
const DRAIN_MS = 120_000

interface Subscriber {
  /** Ids' numbers in the order received. */
  readonly seqs: number[]
  /** `completed` updates per call id. */
  readonly completed: Map<string, number>
  readonly latencies: number[]
  syncs: number
  close(): void
}

export async function run(): Promise<Record<string, number>> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-bench-serve-")))
  const home = await mkdtemp(join(tmpdir(), "toolbelt-bench-serve-home-"))
  await writeFile(join(dir, "notes.txt"), notes(LINES))
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    TOOLBELT_DATA_DIR: join(home, "data"),
    ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
  }
  const server = await startServe(dir, env)
  const rss = sampleRss(server.pid)
  try {
    // 2. Subscribers, sessions, calls.
    const subscribers = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => subscribe(server.url)))
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const reply = await post(server.url, "/api/sessions", { title: `load ${index}` })
        return reply.id as string
      }),
    )
    const started = performance.now()
    await Promise.all(
      sessions.map(async (session) => {
        for (let call = 0; call < CALLS; call++) {
          const reply = await post(server.url, `/api/sessions/${session}/calls`, {
            tool: "read",
            input: { filePath: "notes.txt", limit: 1000 + call },
          })
          if (reply.status !== "completed") throw new Error(`a call failed: ${JSON.stringify(reply)}`)
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const total = SESSIONS * CALLS

    // 3. Every subscriber must see every call end, once.
    const drainStart = Date.now()
    while (subscribers.some((subscriber) => subscriber.completed.size < total)) {
      if (Date.now() - drainStart > DRAIN_MS) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    let lost = 0
    let duplicated = 0
    let gaps = 0
    for (const subscriber of subscribers) {
      lost += total - subscriber.completed.size
      for (const count of subscriber.completed.values()) duplicated += count - 1
      const seen = new Set(subscriber.seqs)
      duplicated += subscriber.seqs.length - seen.size
      subscriber.seqs.forEach((seq, index) => {
        if (index > 0 && seq !== subscriber.seqs[index - 1]! + 1) gaps++
      })
      subscriber.close()
    }
    const latencies = subscribers.flatMap((subscriber) => subscriber.latencies).sort((a, b) => a - b)
    const samples = rss.stop()
    const none: RssSample = { rss: Number.NaN, anon: Number.NaN, file: Number.NaN }
    const peak = samples.reduce((top, sample) => (sample.rss > top.rss ? sample : top), samples[0] ?? none)
    return {
      sessions: SESSIONS,
      calls: total,
      subscribers: SUBSCRIBERS,
      callsPerSecond: total / seconds,
      eventsPerSubscriber: subscribers[0]!.seqs.length,
      lostEvents: lost,
      duplicatedEvents: duplicated,
      idGaps: gaps,
      syncEvents: subscribers.reduce((sum, subscriber) => sum + subscriber.syncs, 0),
      latencyP50Ms: percentile(latencies, 0.5),
      latencyP99Ms: percentile(latencies, 0.99),
      latencyMaxMs: latencies.at(-1) ?? Number.NaN,
      serverRssPeakMiB: peak.rss / 1024,
      serverRssPeakAnonMiB: peak.anon / 1024,
      serverRssPeakFileMiB: peak.file / 1024,
      serverRssEndMiB: (samples.at(-1)?.rss ?? Number.NaN) / 1024,
      serverRssHighWaterMiB: highWaterKiB(server.pid) / 1024,
    }
  } finally {
    rss.stop()
    await server.stop()
    await rm(dir, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
  }
}

export function report(results: Record<string, number>): void {
  for (const [key, value] of Object.entries(results)) {
    console.log(`  ${key.padEnd(24)} ${Number.isInteger(value) ? value : value.toFixed(2)}`)
  }
}

/** The token the server is started with (it needs one on every port), sent as a bearer. */
const TOKEN = randomBytes(24).toString("base64url")
const AUTH = { authorization: `Bearer ${TOKEN}` }

async function post(url: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...AUTH },
    body: JSON.stringify(body),
  })
  return response.json()
}

/** A client of /events, checking as it reads. */
async function subscribe(url: string): Promise<Subscriber> {
  const abort = new AbortController()
  const response = await fetch(`${url}/events`, {
    headers: { accept: "text/event-stream", ...AUTH },
    signal: abort.signal,
  })
  const subscriber: Subscriber = {
    seqs: [],
    completed: new Map(),
    latencies: [],
    syncs: 0,
    close: () => abort.abort(),
  }
  const onFrame = (frame: string) => {
    const id = /^id: \S+\.(\d+)$/m.exec(frame)
    const data = /^data: (.*)$/m.exec(frame)
    if (!data) return
    const event = JSON.parse(data[1]!) as { type: string; properties: any }
    if (event.type === "server.sync") subscriber.syncs++
    if (!id) return
    subscriber.seqs.push(Number(id[1]))
    if (event.type !== "message.part.updated") return
    const { part } = event.properties
    if (part.state.status !== "completed") return
    subscriber.completed.set(part.callID, (subscriber.completed.get(part.callID) ?? 0) + 1)
    subscriber.latencies.push(Date.now() - part.state.time.end)
  }
  readFrames(response.body, onFrame)
  return subscriber
}

/** `toolbelt serve --port 0`, once it printed its address. */
function startServe(dir: string, env: Record<string, string>): Promise<Serve> {
  // Started as a program, as users start it: the launcher's shell lines pick the Node and serve's V8 flags.
  return spawnServe(BIN, ["serve", "--cwd", dir, "--port", "0", "--token", TOKEN], dir, env)
}

/** One reading of a process's resident memory, in KiB: all of it, anonymous, file pages. */
interface RssSample {
  readonly rss: number
  readonly anon: number
  readonly file: number
}

/** Samples a process's RSS every 100 ms until stopped. */
function sampleRss(pid: number): { stop(): RssSample[] } {
  const samples: RssSample[] = []
  const take = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8")
      const kib = (field: string) =>
        Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN)
      const sample = { rss: kib("VmRSS"), anon: kib("RssAnon"), file: kib("RssFile") }
      if (!Number.isNaN(sample.rss)) samples.push(sample)
    } catch {
      // Gone, or not Linux.
    }
  }
  take()
  const timer = setInterval(take, 100)
  return {
    stop() {
      clearInterval(timer)
      return samples
    },
  }
}

function highWaterKiB(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN)
  } catch {
    return Number.NaN
  }
}

/** A file of `lines` numbered lines of text (3 short ones: a small output). */
function notes(lines: number): string {
  if (lines <= 3) return ["one", "two", "three"].slice(0, lines).join("\n") + "\n"
  return Array.from(
    { length: lines },
    (_, index) => `line ${index} of the notes, some words to read here`,
  ).join("\n")
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
