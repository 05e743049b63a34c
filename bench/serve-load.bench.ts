// `toolbelt serve` under load: SESSIONS sessions making CALLS calls each through the HTTP API, all at
// once, while SUBSCRIBERS clients follow /events.
// 1. Start `toolbelt serve --port 0` as a subprocess in a temp project, through bin/toolbelt.js run as
//    a program (its shell lines exec Node with serve's V8 flags, so the RSS is the server's alone;
//    NODE_OPTIONS is passed on, to compare V8 flags), and sample its RSS from /proc while the load runs.
// 2. Connect the subscribers, then create the sessions and run every session's calls in parallel
//    (each session's calls one after another, on a keep-alive connection of its own: `read` of a file of
//    LINES lines, each with another `limit`, so the loop guard sees no repeated call), started at RATE
//    calls/s (default 800; RATE=0: as fast as the server answers). The calls go through a minimal
//    HTTP/1.1 client (lib/http-lite.ts): node:http's cost this process 0.68 against 0.52 ms of CPU a
//    call, on the cores the server uses, and the first second's p99 with it. The subscribers run in worker threads (SUBSCRIBER_THREADS, default one
//    per core, at most one per subscriber; lib/serve-subscribers.ts), not on the loop that drives the
//    calls: a subscriber read late by a busy bench loop measured the bench, not the server (with all
//    of it on one loop, that loop's delay reached p99 340 ms under this load). Not more threads than
//    cores: each is a V8 of its own that starts cold, and ten of them on two cores took the server's
//    CPU in the load's first second (p99 38-61 ms with ten threads, 26-29 with two, the subscribers'
//    loop delay p99 ~10 ms either way, the bench's CPU 0.66 against 0.47 ms per call).
//    The server starts as `toolbelt serve` does, warming its call path first; WARM_UP=0 starts it
//    with --no-warm-up, to measure a cold start.
// 3. Each subscriber checks what it got: ids one after another with none missing or repeated, and for
//    every call exactly one `completed` update; the bench fails (throws) on any event lost, repeated
//    or out of order. Event latency: when the subscriber read the chunk holding a call's `completed`
//    update, minus the call's `time.end` (the end of the tool, before the journal commit that must
//    precede the event); reported over all calls, and over those that ended after the first second.
// Reports calls/s, lost and duplicated events (must be 0), latency p50/p99/max, the subscribers' own
// loop delay (p99, the worst thread: what of the latency is theirs), CPU time per call of the server
// and of this bench (all its threads), and the server's RSS (peak sampled, and the kernel's high-water
// mark), split into anonymous memory (the heaps: V8's and malloc's) and file pages (mostly the node
// binary's code). On a busy machine calls/s and latency mostly measure the wait for a CPU; CPU time
// per call does not.
// Run: node bench/serve-load.bench.ts   (SESSIONS=10 CALLS=10 for a quick look; LINES=1000 for 45 KB
// outputs, which fill the server's event log to its byte budget; HEAP_SNAPSHOT=<dir>: the server
// writes a heap snapshot there when the calls are done, through Node's --heapsnapshot-signal)

import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { LiteConnection } from "./lib/http-lite.ts"
import { type Serve, spawnServe } from "./lib/serve-process.ts"
import { startSubscribers } from "./lib/serve-subscribers.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BIN = join(ROOT, "bin", "toolbelt.js")
const SESSIONS = Number(process.env.SESSIONS ?? 100)
const CALLS = Number(process.env.CALLS ?? 100)
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 10)
/**
 * Calls started per second, all sessions together (issue 31 asks for latency at 800 calls/s): call n
 * starts no earlier than n / RATE s after the first, each session's calls still one after another.
 * RATE=0 starts each call as soon as its session's last one returned (the server's saturation).
 */
const RATE = Number(process.env.RATE ?? 800)
const SUBSCRIBER_THREADS = Number(process.env.SUBSCRIBER_THREADS ?? availableParallelism())
/** WARM_UP=0: `serve --no-warm-up`, the server taking its first calls cold. */
const WARM_UP = process.env.WARM_UP !== "0"
/** Lines of the file each call reads (3: a small output; 1000: about 45 KB). */
const LINES = Number(process.env.LINES ?? 3)
/** Where the server writes a heap snapshot once the calls are done (none unless set). */
const HEAP_SNAPSHOT = process.env.HEAP_SNAPSHOT
/**
 * Where the server writes a V8 CPU profile when it stops (none unless set). NODE_OPTIONS may not carry
 * --cpu-prof, so the server is then started by the pinned Node directly, with the launcher's V8 flag.
 */
const CPU_PROF = process.env.CPU_PROF
/** How long the subscribers may take to see the last event after the last call returned. */
const DRAIN_MS = 120_000

export async function run(): Promise<Record<string, number>> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-bench-serve-")))
  const home = await mkdtemp(join(tmpdir(), "toolbelt-bench-serve-home-"))
  await writeFile(join(dir, "notes.txt"), notes(LINES))
  const nodeOptions = [
    process.env.NODE_OPTIONS,
    HEAP_SNAPSHOT ? `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${HEAP_SNAPSHOT}` : undefined,
  ]
    .filter(Boolean)
    .join(" ")
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    TOOLBELT_DATA_DIR: join(home, "data"),
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  }
  const server = await startServe(dir, env)
  const rss = sampleRss(server.pid)
  let subscribers: Awaited<ReturnType<typeof startSubscribers>> | undefined
  const connections: LiteConnection[] = []
  try {
    // 2. Subscribers, sessions, calls.
    subscribers = await startSubscribers({
      url: server.url,
      token: TOKEN,
      count: SUBSCRIBERS,
      threads: SUBSCRIBER_THREADS,
    })
    // One connection per session, as a client keeping its connection open between calls would.
    for (let index = 0; index < SESSIONS; index++) connections.push(new LiteConnection(server.url, AUTH))
    const sessions = await Promise.all(
      connections.map(async (connection, index) => {
        const reply = await connection.post("/api/sessions", { title: `load ${index}` })
        return { id: reply.id as string, connection }
      }),
    )
    const loop = monitorEventLoopDelay({ resolution: 5 })
    loop.enable()
    const cpuBefore = { server: cpuMs(server.pid), bench: cpuOfThisProcessMs() }
    const started = performance.now()
    const startedAt = Date.now()
    let ticket = 0
    await Promise.all(
      sessions.map(async (session) => {
        for (let call = 0; call < CALLS; call++) {
          if (RATE > 0) {
            const due = started + (ticket++ * 1000) / RATE - performance.now()
            if (due > 0) await new Promise((resolve) => setTimeout(resolve, due))
          }
          const reply = await session.connection.post(`/api/sessions/${session.id}/calls`, {
            tool: "read",
            input: { filePath: "notes.txt", limit: 1000 + call },
          })
          if (reply.status !== "completed") throw new Error(`a call failed: ${JSON.stringify(reply)}`)
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const total = SESSIONS * CALLS
    const serverCpu = cpuMs(server.pid) - cpuBefore.server
    const benchCpu = cpuOfThisProcessMs() - cpuBefore.bench
    loop.disable()
    if (HEAP_SNAPSHOT) process.kill(server.pid, "SIGUSR2")

    // 3. Every subscriber must see every call end, once.
    const { reports, loopDelayP99Ms } = await subscribers.finish(total, DRAIN_MS)
    subscribers = undefined
    const sum = (pick: (report: (typeof reports)[number]) => number) =>
      reports.reduce((all, report) => all + pick(report), 0)
    const latencies = reports.flatMap((report) => report.latencies).sort((a, b) => a - b)
    // The same without the calls of the first second: what a warm server gives (its first second
    // runs code V8 has not optimised yet, and each session's first call reads its history).
    const warmFrom = startedAt + 1000
    const warm = reports
      .flatMap((report) => report.latencies.filter((_, index) => report.ends[index]! >= warmFrom))
      .sort((a, b) => a - b)
    const samples = rss.stop()
    const none: RssSample = { rss: Number.NaN, anon: Number.NaN, file: Number.NaN }
    const peak = samples.reduce((top, sample) => (sample.rss > top.rss ? sample : top), samples[0] ?? none)
    const results = {
      sessions: SESSIONS,
      calls: total,
      subscribers: SUBSCRIBERS,
      targetRate: RATE,
      subscriberThreads: Math.min(SUBSCRIBER_THREADS, SUBSCRIBERS),
      serverWarmedUp: WARM_UP ? 1 : 0,
      callsPerSecond: total / seconds,
      eventsPerSubscriber: reports[0]?.events ?? 0,
      lostEvents: sum((report) => report.lost),
      duplicatedEvents: sum((report) => report.duplicated),
      idGaps: sum((report) => report.gaps),
      syncEvents: sum((report) => report.syncs),
      closedStreams: sum((report) => report.closed),
      latencyP50Ms: percentile(latencies, 0.5),
      latencyP99Ms: percentile(latencies, 0.99),
      latencyMaxMs: latencies.at(-1) ?? Number.NaN,
      latencyP99After1sMs: percentile(warm, 0.99),
      subscriberLoopDelayP99Ms: loopDelayP99Ms,
      benchLoopDelayP99Ms: loop.percentile(99) / 1e6,
      serverCpuMsPerCall: serverCpu / total,
      benchCpuMsPerCall: benchCpu / total,
      serverRssPeakMiB: peak.rss / 1024,
      serverRssPeakAnonMiB: peak.anon / 1024,
      serverRssPeakFileMiB: peak.file / 1024,
      serverRssEndMiB: (samples.at(-1)?.rss ?? Number.NaN) / 1024,
      serverRssHighWaterMiB: highWaterKiB(server.pid) / 1024,
    }
    const wrong = results.lostEvents + results.duplicatedEvents + results.idGaps
    if (wrong > 0 || results.syncEvents + results.closedStreams > 0) {
      report(results)
      throw new Error(
        `The subscribers did not see every event exactly once, in order: ${results.lostEvents} lost, ${results.duplicatedEvents} duplicated, ${results.idGaps} gaps, ${results.syncEvents} server.sync, ${results.closedStreams} streams closed.`,
      )
    }
    return results
  } finally {
    await subscribers?.stop()
    rss.stop()
    for (const connection of connections) connection.close()
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

/** `toolbelt serve --port 0`, once it printed its address. */
function startServe(dir: string, env: Record<string, string>): Promise<Serve> {
  // `--token=`: a token starting with "-" (base64url: 1 in 64) would be taken for an option.
  const args = [
    "serve",
    "--cwd",
    dir,
    "--port",
    "0",
    `--token=${TOKEN}`,
    ...(WARM_UP ? [] : ["--no-warm-up"]),
  ]
  if (CPU_PROF) {
    const node = join(ROOT, "node_modules", "node", "bin", "node")
    const flags = ["--max-semi-space-size=8", "--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`]
    return spawnServe(node, [...flags, BIN, ...args], dir, env)
  }
  // Started as a program, as users start it: the launcher's shell lines pick the Node and serve's V8 flags.
  return spawnServe(BIN, args, dir, env)
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

/** CPU time a process has used so far (all its threads), ms, from /proc (Linux; NaN elsewhere). */
function cpuMs(pid: number): number {
  try {
    // utime and stime, in clock ticks (100 a second on Linux), after the command's closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

/** This process's CPU time so far (the subscribers' worker threads too), ms. */
function cpuOfThisProcessMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
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
