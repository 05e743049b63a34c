// The fleet on PostgreSQL: 1, 2 and 3 `toolbelt serve` instances sharing one PostgreSQL store, under
// the same load as one instance on SQLite (the reference, measured in the same run).
// 1. Start a PostgreSQL server (test/fixtures/postgres.ts: initdb into a temp dir, a loopback port,
//    fsync off); where none can start the bench says why and reports nothing.
// 2. Per configuration, a fresh database and N serve processes (`toolbelt serve --store <url>`), each
//    on a project dir and data dir of its own; SQLite is one process on its own store file.
// 3. One subscriber on every instance's /events. SESSIONS sessions, created round robin over the
//    instances, each making CALLS calls one after another through the instance it was created on,
//    all sessions at once: `read` of a 3-line file, each call with another `limit` (the loop guard
//    sees no repeated call) and a callID chosen here. One warm-up call per session is not counted.
// 4. calls/s: the counted calls over the wall time from the first request to the last reply.
//    Event latency, per subscriber and call: the time (performance.now() in this process) at which
//    the subscriber read the call's `message.part.updated` with status `completed`, minus the time at
//    which the call's HTTP reply had been read here. Negative when the event arrived first (it is
//    published once the final state is on disk, which is before the reply is sent).
// 5. Every subscriber must see every call finish exactly once; the bench fails otherwise.
// Run: npm run bench -- fleet   (SESSIONS=24 CALLS=50 by default; INSTANCES=1,2,3)

import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type PostgresServer, startPostgres } from "../test/fixtures/postgres.ts"
import { type Serve, spawnServe } from "./lib/serve-process.ts"
import { readFrames } from "./lib/sse-frames.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BIN = join(ROOT, "bin", "toolbelt.js")
const SESSIONS = Number(process.env.SESSIONS ?? 24)
const CALLS = Number(process.env.CALLS ?? 50)
const INSTANCES = (process.env.INSTANCES ?? "1,2,3").split(",").map(Number)
/** How long the subscribers may take to see the last call finish after its reply. */
const DRAIN_MS = 30_000
const TOKEN = randomBytes(24).toString("base64url")
const AUTH = { authorization: `Bearer ${TOKEN}` }

export interface Measured {
  readonly name: string
  readonly instances: number
  readonly calls: number
  readonly callsPerSecond: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  /** CPU time (user + system) the serve processes spent per counted call, ms. */
  readonly serveCpuMsPerCall: number
  /** CPU time the PostgreSQL backends of the configuration's database spent per counted call, ms. */
  readonly postgresCpuMsPerCall: number
  /** Subscribers that saw every call finish exactly once, of all subscribers. */
  readonly subscribersOk: number
  readonly subscribers: number
  readonly lost: number
  readonly duplicated: number
}

export interface FleetResults {
  readonly skipped?: string
  readonly cpus: number
  readonly runs: Measured[]
}

export async function run(): Promise<FleetResults> {
  const cpus = availableParallelism()
  let pg: PostgresServer
  try {
    pg = await startPostgres()
  } catch (error) {
    return {
      skipped: `PostgreSQL could not start: ${(error as Error).message.split("\n")[0]}`,
      cpus,
      runs: [],
    }
  }
  const runs: Measured[] = []
  try {
    runs.push(await measure("sqlite", 1, undefined))
    for (const count of INSTANCES) runs.push(await measure(`postgres ×${count}`, count, await pg.database()))
  } finally {
    await pg.stop()
  }
  const failed = runs.filter((one) => one.subscribersOk !== one.subscribers)
  if (failed.length > 0) {
    report({ cpus, runs })
    throw new Error(
      `Not every subscriber saw every call finish exactly once: ${failed.map((one) => `${one.name}: ${one.lost} lost, ${one.duplicated} duplicated`).join("; ")}`,
    )
  }
  return { cpus, runs }
}

export function report(results: FleetResults): void {
  if (results.skipped) {
    console.log(`  skipped: ${results.skipped}`)
    return
  }
  const reference = results.runs.find((one) => one.name === "sqlite")!
  console.log(
    `  ${SESSIONS} sessions × ${CALLS} calls (read), a subscriber per instance, ${results.cpus} CPUs for everything`,
  )
  console.log(
    "  store          calls  calls/s  ×sqlite  event p50 ms  p99 ms  ×sqlite p50/p99  CPU ms/call serve+pg  every call once",
  )
  for (const one of results.runs) {
    const ratio = (value: number, of: number) => (value / of).toFixed(2)
    console.log(
      `  ${one.name.padEnd(13)} ${String(one.calls).padStart(6)} ${one.callsPerSecond.toFixed(0).padStart(8)} ${ratio(one.callsPerSecond, reference.callsPerSecond).padStart(8)} ${one.latencyP50Ms.toFixed(1).padStart(13)} ${one.latencyP99Ms.toFixed(1).padStart(7)} ${`${ratio(one.latencyP50Ms, reference.latencyP50Ms)}/${ratio(one.latencyP99Ms, reference.latencyP99Ms)}`.padStart(16)} ${`${one.serveCpuMsPerCall.toFixed(2)}+${(one.postgresCpuMsPerCall || 0).toFixed(2)}`.padStart(21)}  ${one.subscribersOk}/${one.subscribers} subscribers`,
    )
  }
}

/** One configuration: `count` instances on `store` (a PostgreSQL URL), or one on SQLite. */
async function measure(name: string, count: number, store: string | undefined): Promise<Measured> {
  const homes: string[] = []
  const servers: Serve[] = []
  try {
    for (let index = 0; index < count; index++) {
      const dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-bench-fleet-")))
      const home = await mkdtemp(join(tmpdir(), "toolbelt-bench-fleet-home-"))
      homes.push(dir, home)
      await writeFile(join(dir, "notes.txt"), "one\ntwo\nthree\n")
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        TOOLBELT_DATA_DIR: join(home, "data"),
        ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
      }
      servers.push(await startServe(dir, env, store))
    }
    const subscribers = await Promise.all(servers.map((server) => subscribe(server.url)))
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const url = servers[index % count]!.url
        const reply = await post(url, "/api/sessions", { title: `fleet ${index}` })
        return { url, id: reply.id as string, index }
      }),
    )
    const done = new Map<string, number>()
    const call = async (url: string, session: string, callID: string, limit: number) => {
      const reply = await post(url, `/api/sessions/${session}/calls`, {
        tool: "read",
        input: { filePath: "notes.txt", limit },
        callID,
      })
      if (reply.status !== "completed") throw new Error(`a call failed: ${JSON.stringify(reply)}`)
      done.set(callID, performance.now())
    }
    await Promise.all(sessions.map((session) => call(session.url, session.id, `call_w${session.index}`, 999)))
    const cpuBefore = cpu(servers, store)
    const started = performance.now()
    await Promise.all(
      sessions.map(async (session) => {
        for (let index = 0; index < CALLS; index++)
          await call(session.url, session.id, `call_${session.index}_${index}`, 1000 + index)
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const cpuAfter = cpu(servers, store)
    const expected = [...done.keys()]
    const drainStart = performance.now()
    while (subscribers.some((subscriber) => expected.some((id) => !subscriber.completed.has(id)))) {
      if (performance.now() - drainStart > DRAIN_MS) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    let lost = 0
    let duplicated = 0
    let subscribersOk = 0
    const latencies: number[] = []
    for (const subscriber of subscribers) {
      subscriber.close()
      const missing = expected.filter((id) => !subscriber.completed.has(id)).length
      const twice = [...subscriber.completed.values()].filter((seen) => seen.length > 1).length
      lost += missing
      duplicated += twice
      if (missing === 0 && twice === 0 && subscriber.completed.size === expected.length) subscribersOk++
      for (const [id, at] of done) {
        const seen = subscriber.completed.get(id)?.[0]
        if (seen !== undefined && !id.startsWith("call_w")) latencies.push(seen - at)
      }
    }
    latencies.sort((a, b) => a - b)
    return {
      name,
      instances: count,
      calls: SESSIONS * CALLS,
      callsPerSecond: (SESSIONS * CALLS) / seconds,
      latencyP50Ms: percentile(latencies, 0.5),
      latencyP99Ms: percentile(latencies, 0.99),
      serveCpuMsPerCall: (cpuAfter.serve - cpuBefore.serve) / (SESSIONS * CALLS),
      postgresCpuMsPerCall: (cpuAfter.postgres - cpuBefore.postgres) / (SESSIONS * CALLS),
      subscribersOk,
      subscribers: subscribers.length,
      lost,
      duplicated,
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
    await Promise.all(homes.map((dir) => rm(dir, { recursive: true, force: true })))
  }
}

/**
 * POSTs JSON and reads the reply. A connection the server closed while idle (a kept-alive socket
 * reused as it closes) is tried again: a call names its callID, so a second try is answered from its
 * record and never runs the call twice.
 */
async function post(url: string, path: string, body: unknown): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...AUTH },
        body: JSON.stringify(body),
      })
      return await response.json()
    } catch (error) {
      if (attempt === 3) throw error
    }
  }
}

interface Subscriber {
  /** When each call's `completed` update was read (more than one entry: seen more than once). */
  readonly completed: Map<string, number[]>
  close(): void
}

/** A client of /events, noting when each call's `completed` update arrives. */
async function subscribe(url: string): Promise<Subscriber> {
  const abort = new AbortController()
  const response = await fetch(`${url}/events`, {
    headers: { accept: "text/event-stream", ...AUTH },
    signal: abort.signal,
  })
  const subscriber: Subscriber = { completed: new Map(), close: () => abort.abort() }
  const onFrame = (frame: string) => {
    const data = /^data: (.*)$/m.exec(frame)
    if (!data || !data[1]!.includes('"message.part.updated"')) return
    const event = JSON.parse(data[1]!) as { type: string; properties: any }
    if (event.type !== "message.part.updated") return
    const { part } = event.properties
    if (part.state.status !== "completed") return
    const seen = subscriber.completed.get(part.callID) ?? []
    seen.push(performance.now())
    subscriber.completed.set(part.callID, seen)
  }
  readFrames(response.body, onFrame)
  return subscriber
}

/**
 * CPU time spent so far, ms: by the serve processes (all their threads), and by the PostgreSQL
 * backends serving `store`'s database (found by its name in their process titles). Linux only (NaN
 * elsewhere). Load-independent where wall time is not: on a busy machine calls/s mostly measures
 * the wait for a CPU, at every hop between threads and processes.
 */
function cpu(servers: readonly Serve[], store: string | undefined): { serve: number; postgres: number } {
  const database = store ? new URL(store).pathname.slice(1) : undefined
  let serve = 0
  let postgres = 0
  try {
    for (const server of servers) serve += ticks(server.pid)
    if (database) {
      for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
        try {
          const title = readFileSync(`/proc/${pid}/cmdline`, "utf8")
          if (title.startsWith("postgres: ") && title.includes(` ${database} `))
            postgres += ticks(Number(pid))
        } catch {
          // Gone meanwhile.
        }
      }
    }
  } catch {
    return { serve: Number.NaN, postgres: Number.NaN }
  }
  return { serve: serve * MS_PER_TICK, postgres: postgres * MS_PER_TICK }
}

/** The kernel's clock ticks per second (USER_HZ), 100 on every Linux build in use. */
const MS_PER_TICK = 1000 / 100

/** utime + stime of a process (all its threads), in clock ticks. */
function ticks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return Number(fields[11]) + Number(fields[12])
}

/** `toolbelt serve --port 0` on `store` (SQLite in its data dir when undefined), once it printed its address. */
function startServe(dir: string, env: Record<string, string>, store: string | undefined): Promise<Serve> {
  const args = [
    BIN,
    "serve",
    "--cwd",
    dir,
    "--port",
    "0",
    "--token",
    TOKEN,
    ...(store ? ["--store", store] : []),
  ]
  return spawnServe(process.execPath, args, dir, env)
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
