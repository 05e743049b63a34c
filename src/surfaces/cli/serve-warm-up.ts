// serve's call path, run first on a throwaway toolbelt, so the real server takes its first calls warm.
//
// V8 runs new code unoptimised and optimises what runs often. A server that takes its first calls cold
// spends them about a quarter more CPU each: at 800 calls/s that is past one core, the calls queue, and
// the first second set the run's event latency p99 (bench/serve-load.bench.ts: 62 ms over the run,
// 13 ms once warm). Running the same code first, where nothing of the user's is touched, lets V8 optimise
// it before anyone waits on it.

import { randomBytes } from "node:crypto"
import { Agent, type ClientRequest, type IncomingMessage, request } from "node:http"
import { join } from "node:path"
import { type WarmUpReport, withWarmUpToolbelt } from "../../compose/warm-up-toolbelt.ts"
import { monotonicMs } from "../../platform/util/clock.ts"

/** Calls made at most, and the time they may take (on a slow or busy machine, fewer are made). */
export const WARM_UP_CALLS = 1000
export const WARM_UP_MS = 1500
/** Sessions calling at once, and event subscribers following them. */
const SESSIONS = 8
const SUBSCRIBERS = 2
/** The longest Unix socket path the platforms take (sun_path holds 104 bytes on macOS, 108 on Linux). */
const MAX_SOCKET_PATH = 103

/** The file read: 40 short lines. */
const FILE = {
  name: "warm-up.txt",
  text: `${Array.from({ length: 40 }, (_, index) => `line ${index + 1} of the warm-up file`).join("\n")}\n`,
}

/**
 * On a throwaway toolbelt (`withWarmUpToolbelt`: a temp dir of its own, an in-memory store, nothing of
 * the user's):
 * 1. The HTTP server on it, the code the real one runs, on a Unix socket (mode 0600) in that temp dir:
 *    no port is opened, so no other account can reach it. Where there can be no socket (Windows, a
 *    socket path too long), a loopback port with a random token. SUBSCRIBERS clients follow /events.
 * 2. SESSIONS sessions call `read` on the file, each with another `limit` (the loop guard sees no
 *    repeat), one after another, until `calls` were made, `budgetMs` passed or `signal` aborted.
 * 3. Everything is closed and the directory removed, whatever failed. A failure is not an error: the
 *    server then starts cold; the report says how many calls were made.
 */
export function warmUp(
  options: { readonly calls?: number; readonly budgetMs?: number; readonly signal?: AbortSignal } = {},
): Promise<WarmUpReport> {
  const deadline = monotonicMs() + (options.budgetMs ?? WARM_UP_MS)
  const limit = options.calls ?? WARM_UP_CALLS
  let made = 0
  return withWarmUpToolbelt(FILE, async ({ toolbelt, dir, answered }) => {
    // 1.
    const { serveHttp } = await import("../http/server.ts")
    const socketPath = join(dir, "serve.sock")
    // Where a socket cannot be (Windows, a temp dir whose path leaves a socket's too long): loopback,
    // with a token of its own as the real server has.
    const onSocket = process.platform !== "win32" && Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH
    const token = onSocket ? undefined : randomBytes(32).toString("base64url")
    const server = await serveHttp(
      onSocket ? { toolbelt, socket: socketPath } : { toolbelt, port: 0, host: "127.0.0.1", token },
    )
    const target: Target = onSocket
      ? { socketPath, headers: {} }
      : {
          host: "127.0.0.1",
          port: Number(new URL(server.url).port),
          headers: { authorization: `Bearer ${token}` },
        }
    const agent = new Agent({ keepAlive: true, maxSockets: SESSIONS + SUBSCRIBERS })
    const streams: ClientRequest[] = []
    try {
      for (let index = 0; index < SUBSCRIBERS; index++) streams.push(subscribe(target))
      // 2.
      const sessions = await Promise.all(
        Array.from({ length: SESSIONS }, (_, index) =>
          post(target, agent, "/api/sessions", { title: `warm-up ${index}` }),
        ),
      )
      await Promise.all(
        sessions.map(async (session) => {
          const id = (session as { id: string }).id
          while (made < limit && monotonicMs() < deadline && !options.signal?.aborted) {
            const n = made++
            const reply = await post(target, agent, `/api/sessions/${id}/calls`, {
              tool: "read",
              input: { filePath: FILE.name, offset: 1 + (n % 20), limit: 20 + n },
            })
            if ((reply as { status?: unknown }).status !== "completed")
              throw new Error(`warm-up: a read ended ${JSON.stringify(reply).slice(0, 200)}`)
            answered()
          }
        }),
      )
    } finally {
      // 3.
      for (const stream of streams) stream.destroy()
      agent.destroy()
      await server.close()
    }
  })
}

/** Where the throwaway server listens, and what its requests carry. */
type Target = ({ readonly socketPath: string } | { readonly host: string; readonly port: number }) & {
  readonly headers: Record<string, string>
}

function post(target: Target, agent: Agent, path: string, body: unknown): Promise<unknown> {
  const text = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const call = request(
      {
        ...target,
        path,
        method: "POST",
        agent,
        headers: {
          ...target.headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
        },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          if (response.statusCode !== 200 && response.statusCode !== 201) {
            reject(new Error(`warm-up: ${path} answered ${response.statusCode}`))
            return
          }
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
          } catch (error) {
            reject(error)
          }
        })
        response.on("error", reject)
      },
    )
    call.on("error", reject)
    call.end(text)
  })
}

/** Follows /events, reading and dropping what comes. */
function subscribe(target: Target): ClientRequest {
  const stream = request(
    { ...target, path: "/events", headers: { ...target.headers, accept: "text/event-stream" } },
    (response: IncomingMessage) => {
      response.on("data", () => {})
      response.on("error", () => {})
    },
  )
  stream.on("error", () => {})
  stream.end()
  return stream
}
