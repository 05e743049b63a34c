/**
 * Abandoned MCP sessions: opens many sessions of `toolbelt mcp --http` (a real server process with a
 * 64 MiB heap, as the soak that found the leak ran it), starts a `sleep` through bash in each, and
 * walks away mid-call. Goal: the server stays up with flat memory, and no sleep is left.
 *
 *   npx node bench/mcp-sessions.ts [sessions=5000] [idle_ms=5000]
 *
 * 1. Start the server (`--session-idle-ms idle_ms`, the default session cap) and note its RSS.
 * 2. In waves of 50: open a session, POST a `bash` call of `sleep 1000.<pid><n>`, wait until the
 *    sleeps of the wave run, then drop every connection of the wave.
 * 3. After the last wave, wait until no sleep of this run is left and the sessions have had time to
 *    expire; print the server's RSS and peak RSS before and after, and the sleeps left over.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const total = Number(process.argv[2] ?? 5000)
const idleMs = Number(process.argv[3] ?? 5000)
const WAVE = 50
const root = resolve(import.meta.dirname, "..")
const dir = mkdtempSync(join(tmpdir(), "toolbelt-mcp-sessions-"))
writeFileSync(join(dir, "toolbelt.json"), "{}")
const tag = `1000.${process.pid}`
// The server needs a token on every port: this run chooses one and sends it.
const token = randomBytes(24).toString("base64url")
const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${token}`,
}

// 1. The server.
const server = spawn(
  process.execPath,
  [
    "--max-old-space-size=64",
    join(root, "bin", "toolbelt.js"),
    "mcp",
    "--cwd",
    dir,
    "--http",
    "0",
    "--session-idle-ms",
    String(idleMs),
    "--token",
    token,
  ],
  {
    cwd: dir,
    env: { ...process.env, TOOLBELT_DATA_DIR: join(dir, ".data") },
    stdio: ["ignore", "ignore", "pipe"],
  },
)
const url = await endpoint(server)
const before = memory(server.pid!)
console.log(`server ${server.pid} at ${url}; ${total} sessions, idle limit ${idleMs} ms`)
console.log(`before: rss ${mib(before.rss)}`)

// 2. Waves of abandoned sessions.
const started = performance.now()
let opened = 0
let refused = 0
const reasons = new Set<string>()
for (let wave = 0; wave < total; wave += WAVE) {
  const count = Math.min(WAVE, total - wave)
  const streams: Response[] = []
  const leave = new AbortController()
  await Promise.all(
    Array.from({ length: count }, async (_, offset) => {
      try {
        const session = await open()
        const response = await fetch(url, {
          method: "POST",
          headers: { ...headers, ...session },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: {
              name: "bash",
              arguments: { command: `sleep ${tag}${wave + offset}`, description: "wait" },
            },
          }),
          signal: leave.signal,
        })
        if (response.status === 200) {
          streams.push(response)
          opened++
        } else {
          refused++
          reasons.add(`${response.status} ${(await response.text()).slice(0, 200)}`)
        }
      } catch (error) {
        refused++
        reasons.add(String(error))
      }
    }),
  )
  await waitFor(() => sleeps().length >= streams.length, 30_000)
  leave.abort()
  streams.length = 0
  if (server.exitCode !== null) break
  if ((wave / WAVE) % 10 === 0) {
    const now = memory(server.pid!)
    console.log(`${wave + count} sessions: rss ${mib(now.rss)}, sleeps running ${sleeps().length}`)
  }
}

// 3. What is left.
const alive = server.exitCode === null
await waitFor(() => sleeps().length === 0, 60_000)
await new Promise((done) => setTimeout(done, idleMs * 2))
const after = alive ? memory(server.pid!) : undefined
const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(`${opened} sessions with a running sleep abandoned in ${seconds} s (${refused} refused)`)
for (const reason of [...reasons].slice(0, 5)) console.log(`refused: ${reason}`)
console.log(`server: ${alive ? "alive" : `exited with ${server.exitCode}`}`)
if (after)
  console.log(`after: rss ${mib(after.rss)}, peak rss ${mib(after.peak)} (before: ${mib(before.rss)})`)
console.log(`sleeps left over: ${sleeps().length}`)
server.kill("SIGTERM")
rmSync(dir, { recursive: true, force: true })

async function open(): Promise<Record<string, string>> {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  })
  await response.text()
  const id = response.headers.get("mcp-session-id")
  if (!id) throw new Error(`initialize: ${response.status}`)
  const session = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }
  await fetch(url, {
    method: "POST",
    headers: { ...headers, ...session },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((answer) => answer.text())
  return session
}

/** The pids of this run's sleeps (Linux /proc). */
function sleeps(): number[] {
  const pids: number[] = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8")
      if (cmdline.startsWith("sleep\0") && cmdline.includes(tag)) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024
  return { rss: kib("VmRSS"), peak: kib("VmHWM") }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const start = performance.now()
  while (!condition() && performance.now() - start < timeoutMs)
    await new Promise((done) => setTimeout(done, 50))
}

function endpoint(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let text = ""
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString()
      const match = /at (http:\/\/\S+\/mcp)/.exec(text)
      if (match) done(match[1]!)
    })
    child.once("exit", (code) => fail(new Error(`the server exited (${code}): ${text}`)))
  })
}
