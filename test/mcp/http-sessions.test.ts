// The life of `toolbelt mcp --http` sessions: ended by DELETE, by idleness or to make room, and what
// ending one must do (abort its calls, kill its processes and jobs, let go of its memory).
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createToolbelt } from "../../src/compose/toolbelt.ts"
import { serveMcpHttp } from "../../src/surfaces/mcp-server/http.ts"
import {
  type HttpServer,
  makeProject,
  type Project,
  processesWith,
  rememberToken,
  startHttp,
  textOf,
  until,
} from "./helpers.ts"
import { callTool, JSON_HEADERS, messagesOf, openSession, post } from "./raw.ts"

let project: Project

beforeAll(async () => {
  project = await makeProject()
})

afterAll(async () => {
  await project?.remove()
})

/** A toolbelt of the project in this process, to serve with short idle limits. */
function inProcessToolbelt() {
  return createToolbelt({ directory: project.dir, env: project.env, dataDir: project.env.TOOLBELT_DATA_DIR! })
}

/** Starts a `sleep` through bash in the session and walks away: the request is dropped mid-call. */
async function startAndWalkAway(url: string, session: Record<string, string>, needle: string, id = 2) {
  const leave = new AbortController()
  const response = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...session },
    body: JSON.stringify(callTool(id, "bash", { command: `sleep ${needle}`, description: "wait" })),
    signal: leave.signal,
  })
  expect(response.status).toBe(200)
  await until(async () => (await processesWith(`sleep ${needle}`)).length > 0, `sleep ${needle} to start`)
  leave.abort()
}

function deleteSession(url: string, session: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "DELETE", headers: session })
}

describe("toolbelt mcp --http: ending sessions", () => {
  let server: HttpServer

  beforeAll(async () => {
    server = await startHttp(project, ["--max-sessions", "2"])
  })

  afterAll(async () => {
    expect(await server?.stop()).toBe(0)
  })

  it("DELETE aborts the session's calls and kills its commands and background jobs", async () => {
    const session = await openSession(server.url, "2025-11-25")
    const job = await post(
      server.url,
      callTool(2, "bash", { command: "sleep 63.11", description: "job", run_in_background: true }),
      session,
    )
    expect(textOf(job.messages[0]?.result)).toMatch(/job/i)
    await startAndWalkAway(server.url, session, "63.12", 3)
    expect(await processesWith("sleep 63.11")).not.toEqual([])

    expect((await deleteSession(server.url, session)).status).toBe(200)
    await until(
      async () => (await processesWith("sleep 63.1")).length === 0,
      "the session's command and background job to be killed",
    )
    const after = await post(server.url, { jsonrpc: "2.0", id: 9, method: "ping" }, session)
    expect(after.status).toBe(404)
    expect(after.text).toContain("ended by the client (DELETE)")
  })

  it("makes room for a new session by ending the longest idle one, which then gets 404", async () => {
    const first = await openSession(server.url, "2025-11-25")
    const second = await openSession(server.url, "2025-11-25")
    expect((await post(server.url, { jsonrpc: "2.0", id: 2, method: "ping" }, first)).status).toBe(200)
    const third = await openSession(server.url, "2025-11-25")
    const evicted = await post(server.url, { jsonrpc: "2.0", id: 3, method: "ping" }, second)
    expect(evicted.status).toBe(404)
    expect(evicted.messages[0]).toMatchObject({ error: { code: -32001 } })
    expect(evicted.text).toContain("limit of live sessions (mcp.max_sessions)")
    for (const live of [first, third]) {
      expect((await post(server.url, { jsonrpc: "2.0", id: 4, method: "ping" }, live)).status).toBe(200)
    }
  })
})

describe("toolbelt mcp --http: a request of a session holds it", () => {
  it("from its first byte: a body that arrives slower than the idle limit is still answered", async () => {
    await using toolbelt = await inProcessToolbelt()
    const server = await serveMcpHttp({ toolbelt, port: 0, sessionIdleMs: 200 })
    rememberToken(server.url, server.token)
    try {
      const session = await openSession(server.url, "2025-11-25")
      const text = JSON.stringify(callTool(2, "bash", { command: "echo held", description: "echo" }))
      const half = text.length >> 1
      const encoder = new TextEncoder()
      // Half the body now, the rest after three idle limits: the session must not end in between.
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(text.slice(0, half)))
          await new Promise((resolve) => setTimeout(resolve, 600))
          controller.enqueue(encoder.encode(text.slice(half)))
          controller.close()
        },
      })
      const response = await fetch(server.url, {
        method: "POST",
        headers: { ...JSON_HEADERS, ...session },
        body,
        duplex: "half",
        signal: AbortSignal.timeout(30_000),
      } as RequestInit)
      const answer = await response.text()
      expect(response.status, answer).toBe(200)
      const messages = messagesOf(answer)
      expect(textOf(messages.at(-1)?.result)).toContain("held")
      // Once answered, the idle clock runs again and the session ends.
      await until(() => server.sessions === 0, "the idle session to end", 30_000)
    } finally {
      await server.close()
    }
  })
})

describe("toolbelt mcp --http: abandoned sessions", () => {
  /** Heap in use after a full collection (the test process is the server here). */
  function heapAfterGc(): number {
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc") as () => void
    gc()
    gc()
    return process.memoryUsage().heapUsed
  }

  /**
   * Opens `count` sessions, each running `sleep 600.0<tag><n>` (longer than any wait here, so a slow
   * machine cannot see a sleep end on its own before it is counted), and walks away from all of them once
   * every sleep runs. A session that expired before its call came (a loaded machine) gets 404, and is
   * opened again, as an MCP client does.
   */
  async function abandon(url: string, count: number, tag: string): Promise<Record<string, string>[]> {
    const leave = new AbortController()
    // Held until every sleep runs: a response nobody holds is collected, and its connection closed.
    const streams: Response[] = []
    const start = async (index: number): Promise<Record<string, string>> => {
      const session = await openSession(url, "2025-11-25").catch(() => undefined)
      if (!session) return start(index)
      // A connection reset on a saturated machine is retried like an expired session, as a client would.
      const response = await fetch(url, {
        method: "POST",
        headers: { ...JSON_HEADERS, ...session },
        body: JSON.stringify(
          callTool(2, "bash", { command: `sleep 600.0${tag}${index}`, description: "wait" }),
        ),
        signal: leave.signal,
      }).catch(() => undefined)
      if (!response || response.status === 404) return start(index)
      expect(response.status).toBe(200)
      streams.push(response)
      return session
    }
    const sessions: Record<string, string>[] = []
    for (let index = 0; index < count; index += 10) {
      const chunk = Array.from({ length: Math.min(10, count - index) }, (_, offset) => start(index + offset))
      sessions.push(...(await Promise.all(chunk)))
    }
    await until(
      async () => new Set((await processesWith(`sleep 600.0${tag}`)).map(String)).size >= count,
      `${count} sleeps to run`,
      240_000,
    )
    leave.abort()
    streams.length = 0
    return sessions
  }

  it("end when idle: 100 sessions with running commands leave no process, no session and no memory behind", async () => {
    await using toolbelt = await inProcessToolbelt()
    const server = await serveMcpHttp({ toolbelt, port: 0, sessionIdleMs: 1000 })
    rememberToken(server.url, server.token)
    const ended = async (tag: string) => {
      await until(() => server.sessions === 0, "every idle session to end", 240_000)
      await until(
        async () => (await processesWith(`sleep 600.0${tag}`)).length === 0,
        "every sleep to be killed",
        60_000,
      )
    }
    try {
      // A first round warms up what stays (compiled code, the tool list, the store's statements).
      await abandon(server.url, 20, "1")
      await ended("1")
      const baseline = heapAfterGc()

      const sessions = await abandon(server.url, 100, "2")
      // What 100 live sessions hold, measured in this run (~3.3 MB on a quiet machine): the yardstick
      // for what may stay, since a loaded machine also grows the heap with code it optimises late.
      const held = heapAfterGc() - baseline
      await ended("2")
      for (const session of sessions) {
        const answer = await post(server.url, { jsonrpc: "2.0", id: 9, method: "ping" }, session)
        expect(answer.status).toBe(404)
        expect(answer.text).toContain("not used for longer than the idle limit (mcp.session_idle_ms)")
      }
      // Sessions that leaked would keep all of it; what stays must be well under half.
      const grown = heapAfterGc() - baseline
      expect(grown, `heap grew by ${grown} bytes; 100 live sessions held ${held}`).toBeLessThan(held / 2)
    } finally {
      await server.close()
    }
  }, 600_000)
})
