// Resumable MCP streams over real HTTP on loopback: a client whose stream drops in the middle of a call
// reconnects with `GET` + `Last-Event-ID` and gets what it missed, once; and what may not be resumed
// (another session's event, one dropped by the bounds, an ended session, a cancelled request).
import { existsSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Client, type Progress, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createToolbelt, type Toolbelt } from "../../src/compose/toolbelt.ts"
import { serveHttp } from "../../src/surfaces/http/server.ts"
import { DEFAULT_REPLAY_LIMITS } from "../../src/surfaces/mcp-server/event-store.ts"
import {
  type McpHandlerOptions,
  type McpHttpServer,
  serveMcpHttp,
} from "../../src/surfaces/mcp-server/http.ts"
import { authFor, makeProject, type Project, rememberToken, textOf, until } from "./helpers.ts"
import { JSON_HEADERS, openSession, post } from "./raw.ts"

let project: Project
let toolbelt: Toolbelt

beforeAll(async () => {
  project = await makeProject()
  toolbelt = await createToolbelt({
    directory: project.dir,
    env: project.env,
    dataDir: project.env.TOOLBELT_DATA_DIR!,
  })
})

afterAll(async () => {
  await toolbelt?.close()
  await project?.remove()
})

/** A server for one test (its own sessions and kept events), closed when the test ends. */
async function serve(options: Partial<McpHandlerOptions> = {}): Promise<McpHttpServer & AsyncDisposable> {
  const server = await serveMcpHttp({ toolbelt, port: 0, ...options })
  rememberToken(server.url, server.token)
  return Object.assign(server, { [Symbol.asyncDispose]: () => server.close() })
}

interface SseEvent {
  readonly id: string | undefined
  /** The JSON-RPC message; none for a priming event. */
  readonly message: Record<string, unknown> | undefined
}

/** Reads a response's SSE events one at a time; `undefined` once the stream has ended. */
class EventReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>
  readonly #decoder = new TextDecoder()
  #buffer = ""

  constructor(response: Response) {
    if (!response.body) throw new Error(`no body (status ${response.status})`)
    this.#reader = response.body.getReader()
  }

  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n")
      if (end >= 0) {
        const block = this.#buffer.slice(0, end)
        this.#buffer = this.#buffer.slice(end + 2)
        const event = parseEvent(block)
        if (event) return event
        continue
      }
      const { done, value } = await this.#reader.read()
      if (done) return undefined
      this.#buffer += this.#decoder.decode(value, { stream: true })
    }
  }

  /** Reads until an event matches; every event read, that one last. */
  async until(match: (event: SseEvent) => boolean, what: string): Promise<SseEvent[]> {
    const read: SseEvent[] = []
    for (;;) {
      const event = await this.next()
      if (!event) throw new Error(`the stream ended before ${what}; read: ${JSON.stringify(read)}`)
      read.push(event)
      if (match(event)) return read
    }
  }

  /** Every event left, to the end of the stream. */
  async rest(): Promise<SseEvent[]> {
    const read: SseEvent[] = []
    for (let event = await this.next(); event; event = await this.next()) read.push(event)
    return read
  }
}

/** One SSE event block, or nothing for a comment (the keep-alive). */
function parseEvent(block: string): SseEvent | undefined {
  let id: string | undefined
  let data: string | undefined
  for (const line of block.split("\n")) {
    if (line.startsWith("id:")) id = line.slice(3).trim()
    else if (line.startsWith("data:")) data = (data ?? "") + line.slice(5).trim()
  }
  if (id === undefined && data === undefined) return undefined
  return { id, message: data ? (JSON.parse(data) as Record<string, unknown>) : undefined }
}

/** A progress notification's params. */
function progressOf(event: SseEvent): { progress: number; message?: string } | undefined {
  if (event.message?.method !== "notifications/progress") return undefined
  return event.message.params as { progress: number; message?: string }
}

function progressMessage(event: SseEvent): string | undefined {
  return progressOf(event)?.message
}

/** The event ids that came on a POST's stream (the first one is its priming event). */
function eventIds(text: string): string[] {
  return [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1]!)
}

/**
 * A command that says "before", waits for `<tag>.go`, says "after", and waits for `<tag>.finish`: the
 * test decides when each part happens, so it can cut the stream in between.
 */
function waitingCommand(tag: string): string {
  const go = join(project.dir, `${tag}.go`)
  const finish = join(project.dir, `${tag}.finish`)
  return `echo before; until [ -e ${go} ]; do sleep 0.05; done; echo after; until [ -e ${finish} ]; do sleep 0.05; done`
}

function release(tag: string, step: "go" | "finish"): Promise<void> {
  return writeFile(join(project.dir, `${tag}.${step}`), "")
}

const CALL_ID = 2

/** Starts the waiting command with a progress token, reads until "before", and cuts the connection. */
async function startAndCut(url: string, session: Record<string, string>, tag: string): Promise<SseEvent[]> {
  const cut = new AbortController()
  const response = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...session },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: CALL_ID,
      method: "tools/call",
      params: {
        name: "bash",
        arguments: { command: waitingCommand(tag), description: "wait for the test" },
        _meta: { progressToken: `progress-${tag}` },
      },
    }),
    signal: cut.signal,
  })
  expect(response.status).toBe(200)
  const read = await new EventReader(response).until(
    (event) => progressMessage(event)?.includes("before") === true,
    'the progress that says "before"',
  )
  cut.abort()
  return read
}

/**
 * `GET` with `Last-Event-ID`. A server may not have seen the cut connection close yet (409: the stream
 * still has one); a client tries again, and so does this.
 */
async function resume(url: string, session: Record<string, string>, lastEventId: string): Promise<Response> {
  let response: Response | undefined
  await until(async () => {
    response = await fetch(url, {
      headers: { accept: "text/event-stream", ...session, "last-event-id": lastEventId },
    })
    if (response.status !== 409) return true
    await response.body?.cancel()
    return false
  }, "the server to let go of the cut stream")
  return response!
}

/**
 * What arrived before and after the cut, together: no event twice, every progress once, the result
 * once (after the cut, with what the command said after it), and progress from after the cut.
 */
function expectEachOnce(before: SseEvent[], after: SseEvent[]): void {
  const all = [...before, ...after]
  const ids = all.map((event) => event.id).filter((id) => id !== undefined)
  expect(ids.length).toBe(all.length)
  expect(new Set(ids).size, `ids: ${ids.join(", ")}`).toBe(ids.length)
  const values = all.flatMap((event) => progressOf(event)?.progress ?? [])
  expect(new Set(values).size, `progress values: ${values.join(", ")}`).toBe(values.length)
  expect(after.map(progressMessage).some((message) => message?.includes("after"))).toBe(true)
  const results = all.filter((event) => event.message?.id === CALL_ID)
  expect(results).toHaveLength(1)
  expect(after).toContain(results[0])
  const text = textOf(results[0]!.message!.result)
  expect(text).toContain("before")
  expect(text).toContain("after")
}

/**
 * Cuts the stream of a call, reconnects at once (the command still waits), then lets the command go
 * on and end: what follows arrives on the new stream.
 */
async function cutAndResumeWhileRunning(url: string, tag: string): Promise<void> {
  const session = await openSession(url, "2025-11-25")
  const before = await startAndCut(url, session, tag)
  const response = await resume(url, session, before.at(-1)!.id!)
  expect(response.status).toBe(200)
  const reader = new EventReader(response)
  await release(tag, "go")
  const progress = await reader.until(
    (event) => progressMessage(event)?.includes("after") === true,
    'the progress that says "after"',
  )
  await release(tag, "finish")
  expectEachOnce(before, [...progress, ...(await reader.rest())])
}

describe("a stream cut in the middle of a call", () => {
  it("resumed after the call ended: replays the progress and the result it missed, once, and ends", async () => {
    await using server = await serve()
    const session = await openSession(server.url, "2025-11-25")
    const before = await startAndCut(server.url, session, "ended")
    const kept = server.replayable.events

    // While nobody listens: the command goes on ("after" is sent as progress), then ends.
    await release("ended", "go")
    await until(() => server.replayable.events > kept, "the progress after the cut to be kept")
    const withProgress = server.replayable.events
    await release("ended", "finish")
    await until(() => server.replayable.events > withProgress, "the result to be kept")

    const response = await resume(server.url, session, before.at(-1)!.id!)
    expect(response.status).toBe(200)
    // The request is answered: the stream replays and ends.
    const after = await new EventReader(response).rest()
    expectEachOnce(before, after)
  })

  it("resumed while the call runs: what follows arrives on the new stream, once", async () => {
    await using server = await serve()
    await cutAndResumeWhileRunning(server.url, "running")
  })

  it("the MCP SDK client reconnects by itself, and its call gets its result and each progress once", async () => {
    await using server = await serve()
    const requests: string[] = []
    let cut = false
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: authFor(server.url) },
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers)
        requests.push(`${init?.method ?? "GET"} ${headers.get("last-event-id") ?? "-"}`)
        const response = await fetch(input, init)
        if (!String(init?.body ?? "").includes('"tools/call"') || !response.body) return response
        const body = cutAfter(response.body, "before", () => {
          cut = true
        })
        return new Response(body, { status: response.status, headers: response.headers })
      },
    })
    const client = new Client({ name: "resume-test", version: "1.0.0" })
    await client.connect(transport)
    try {
      const progress: Progress[] = []
      const call = client.callTool(
        { name: "bash", arguments: { command: waitingCommand("sdk"), description: "wait for the test" } },
        { onprogress: (update) => progress.push(update), timeout: 60_000 },
      )
      await until(() => cut, "the stream to be cut after the progress that says before")
      await release("sdk", "go")
      await until(
        () => progress.some((update) => update.message?.includes("after")),
        'the progress that says "after", through the reconnected stream',
        30_000,
      )
      await release("sdk", "finish")
      const result = await call

      expect(textOf(result)).toContain("before")
      expect(textOf(result)).toContain("after")
      const values = progress.map((update) => update.progress)
      expect(values, JSON.stringify(progress)).toEqual([...new Set(values)].sort((a, b) => a - b))
      expect(progress.some((update) => update.message?.includes("before"))).toBe(true)
      expect(
        requests.some((request) => /^GET \S+\.\d+$/.test(request)),
        requests.join("\n"),
      ).toBe(true)
    } finally {
      await transport.terminateSession().catch(() => {})
      await client.close()
    }
  })

  it("resumes through `toolbelt serve` at /mcp too", async () => {
    const served = await serveHttp({ toolbelt, port: 0 })
    rememberToken(served.url, served.token)
    try {
      await cutAndResumeWhileRunning(`${served.url}/mcp`, "served")
    } finally {
      await served.close()
    }
  })
})

describe("a long replay", () => {
  it("is sent in pieces: each resume replays a bounded amount and ends, and resuming from its last event goes on", async () => {
    const replayBytes = 1000
    await using server = await serve({ replayLimits: { ...DEFAULT_REPLAY_LIMITS, replayBytes } })
    const session = await openSession(server.url, "2025-11-25")
    const marker = join(project.dir, "long-replay.done")
    const cut = new AbortController()
    const response = await fetch(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...session },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: CALL_ID,
        method: "tools/call",
        params: {
          name: "bash",
          arguments: {
            command: `for i in $(seq 1 15); do echo "line $i of a long replay"; sleep 0.15; done; touch ${marker}`,
            description: "print slowly",
          },
          _meta: { progressToken: "progress-long" },
        },
      }),
      signal: cut.signal,
    })
    const primed = await new EventReader(response).next()
    cut.abort()
    // Nobody listens while the command prints: its progress piles up to be replayed.
    await until(() => existsSync(marker), "the command to end", 30_000)

    const pieces: SseEvent[][] = []
    let last = primed!.id!
    while (!pieces.flat().some((event) => event.message?.id === CALL_ID)) {
      const resumed = await resume(server.url, session, last)
      expect(resumed.status).toBe(200)
      const piece = await new EventReader(resumed).rest()
      expect(piece.length).toBeGreaterThan(0)
      pieces.push(piece)
      last = piece.at(-1)!.id!
    }

    expect(pieces.length).toBeGreaterThan(1)
    for (const piece of pieces.slice(0, -1)) {
      const bytes = piece.reduce((sum, event) => sum + JSON.stringify(event.message).length, 0)
      expect(bytes).toBeLessThanOrEqual(replayBytes)
    }
    const all = pieces.flat()
    const ids = all.map((event) => event.id)
    expect(new Set(ids).size).toBe(ids.length)
    const values = all.flatMap((event) => progressOf(event)?.progress ?? [])
    expect(values).toEqual([...values].sort((a, b) => a - b))
    expect(new Set(values).size).toBe(values.length)
    expect(textOf(all.at(-1)!.message!.result)).toContain("line 15 of a long replay")
  })
})

/** The body as it comes, until a chunk that contains `needle` has passed: then the connection drops. */
function cutAfter(
  body: ReadableStream<Uint8Array>,
  needle: string,
  onCut: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let cutting = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (cutting) {
        await reader.cancel()
        onCut()
        controller.error(new Error("connection cut by the test"))
        return
      }
      const { done, value } = await reader.read()
      if (done) return controller.close()
      // Passed on first; the error comes on the next read, so the client sees this chunk.
      controller.enqueue(value)
      if (decoder.decode(value, { stream: true }).includes(needle)) cutting = true
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

describe("what a Last-Event-ID cannot resume", () => {
  it("another session's event id replays nothing there, while its own session replays from it", async () => {
    await using server = await serve()
    const mine = await openSession(server.url, "2025-11-25")
    const theirs = await openSession(server.url, "2025-11-25")
    const answer = await post(server.url, { jsonrpc: "2.0", id: 7, method: "ping" }, theirs)
    const [primed] = eventIds(answer.text)

    const stolen = await fetch(server.url, {
      headers: { accept: "text/event-stream", ...mine, "last-event-id": primed! },
    })
    expect(stolen.status).toBe(400)
    const refusal = await stolen.text()
    expect(refusal).toContain("is not an event this session still keeps")
    expect(refusal).not.toContain('"id":7')

    const own = await resume(server.url, theirs, primed!)
    expect(own.status).toBe(200)
    expect((await new EventReader(own).rest()).map((event) => event.message)).toEqual([
      { jsonrpc: "2.0", id: 7, result: {} },
    ])
  })

  it("an id that was never given replays nothing", async () => {
    await using server = await serve()
    const session = await openSession(server.url, "2025-11-25")
    for (const made of ["0", "abc.1", "AAAAAAAAAAAAAAAAAAAAAA.0"]) {
      const response = await fetch(server.url, {
        headers: { accept: "text/event-stream", ...session, "last-event-id": made },
      })
      expect(response.status, made).toBe(400)
      expect(await response.text()).toContain("is not an event this session still keeps")
    }
  })

  it("the stream of a cancelled request answers 405: nothing more will come on it", async () => {
    await using server = await serve()
    const session = await openSession(server.url, "2025-11-25")
    const response = await fetch(server.url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...session },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "bash", arguments: { command: "sleep 47.2", description: "wait" } },
      }),
    })
    const reader = new EventReader(response)
    const primed = await reader.next()
    const cancel = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5, reason: "test" },
    }
    expect((await post(server.url, cancel, session)).status).toBe(202)
    expect(await reader.rest()).toEqual([])

    const again = await fetch(server.url, {
      headers: { accept: "text/event-stream", ...session, "last-event-id": primed!.id! },
    })
    expect(again.status).toBe(405)
    expect(await again.text()).toContain("ended when its request was cancelled")
  })
})

describe("what is kept", () => {
  async function ping(url: string, session: Record<string, string>, id: number): Promise<string> {
    const answer = await post(url, { jsonrpc: "2.0", id, method: "ping" }, session)
    expect(answer.status).toBe(200)
    return eventIds(answer.text)[0]!
  }

  async function resumable(url: string, session: Record<string, string>, eventId: string): Promise<number> {
    const response = await fetch(url, {
      headers: { accept: "text/event-stream", ...session, "last-event-id": eventId },
    })
    await response.body?.cancel()
    return response.status
  }

  it("drops a session's oldest events past its limit", async () => {
    // initialize and each ping: a priming event and a response.
    await using server = await serve({
      replayLimits: { sessionEvents: 4, sessionBytes: 1 << 20, totalEvents: 100, totalBytes: 1 << 24 },
    })
    const session = await openSession(server.url, "2025-11-25")
    const first = await ping(server.url, session, 2)
    const second = await ping(server.url, session, 3)
    const third = await ping(server.url, session, 4)

    expect(server.replayable.events).toBe(4)
    expect(await resumable(server.url, session, first)).toBe(400)
    expect(await resumable(server.url, session, second)).toBe(200)
    expect(await resumable(server.url, session, third)).toBe(200)
  })

  it("drops the oldest events of all sessions past the total", async () => {
    await using server = await serve({
      replayLimits: { sessionEvents: 100, sessionBytes: 1 << 20, totalEvents: 4, totalBytes: 1 << 24 },
    })
    const a = await openSession(server.url, "2025-11-25")
    const a1 = await ping(server.url, a, 2)
    const b = await openSession(server.url, "2025-11-25")
    const b1 = await ping(server.url, b, 2)

    // B's initialize pushed out A's, and B's ping A's ping.
    expect(server.replayable.events).toBe(4)
    expect(await resumable(server.url, a, a1)).toBe(400)
    expect(await resumable(server.url, b, b1)).toBe(200)
  })

  it("lets go of a session's events when it is deleted", async () => {
    await using server = await serve()
    const kept = await openSession(server.url, "2025-11-25")
    await ping(server.url, kept, 2)
    const before = server.replayable
    const deleted = await openSession(server.url, "2025-11-25")
    const id = await ping(server.url, deleted, 2)
    await post(server.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, deleted)
    expect(server.replayable.bytes).toBeGreaterThan(before.bytes)

    expect((await fetch(server.url, { method: "DELETE", headers: deleted })).status).toBe(200)
    expect(server.replayable).toEqual(before)
    expect(await resumable(server.url, deleted, id)).toBe(404)
  })

  it("lets go of a session's events when it expires", async () => {
    await using server = await serve({ sessionIdleMs: 200 })
    const session = await openSession(server.url, "2025-11-25")
    await ping(server.url, session, 2)
    expect(server.replayable.events).toBeGreaterThan(0)
    await until(() => server.sessions === 0, "the idle session to end")
    expect(server.replayable).toEqual({ events: 0, bytes: 0 })
  })
})
