// A real `toolbelt serve` server on loopback for the tests: in this process (serveHttp over a toolbelt
// of a temp project) or as the command, and what reads its API and its event stream. The servers
// need a token, as they do by default: `api`, `newSession` and `EventClient.open` send the token of
// the server they talk to, as a configured client would; `anonymous` sends none.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { createToolbelt, type Toolbelt } from "../../src/compose/toolbelt.ts"
import type { Config } from "../../src/runtime/config/config.ts"
import { type ServeOptions, serveHttp, type ToolbeltServer } from "../../src/surfaces/http/server.ts"

export const root = resolve(import.meta.dirname, "..", "..")
export const bin = join(root, "bin", "toolbelt.js")

export interface Project {
  readonly dir: string
  readonly home: string
  readonly env: Record<string, string>
  remove(): Promise<void>
}

/** A temp project (with `hello.txt`) and a home of its own (data dir, config dir). */
export async function makeProject(config?: Config): Promise<Project> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-serve-")))
  const home = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-serve-home-")))
  await writeFile(join(dir, "hello.txt"), "hello\nworld\n")
  if (config) await writeFile(join(dir, "toolbelt.json"), JSON.stringify(config))
  return {
    dir,
    home,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      TOOLBELT_DATA_DIR: join(home, "data"),
    },
    async remove() {
      await rm(dir, { recursive: true, force: true })
      await rm(home, { recursive: true, force: true })
    },
  }
}

/** The tokens of the servers the helpers started, by port. */
const tokens = new Map<string, string>()

/** Remembers a server's token, so the helpers send it. */
export function rememberToken(url: string, token: string | undefined): void {
  const { port } = new URL(url)
  if (token === undefined) tokens.delete(port)
  else tokens.set(port, token)
}

/** The `Authorization` header for a server the helpers started (none when it has no token). */
export function authFor(url: string): Record<string, string> {
  const token = tokens.get(new URL(url).port)
  return token === undefined ? {} : { authorization: `Bearer ${token}` }
}

/** Adds the server's token unless the headers already say who is asking (a bearer or a cookie). */
function withAuth(url: string, headers: Record<string, string>): Record<string, string> {
  const named = Object.keys(headers).some((name) => /^(authorization|cookie)$/i.test(name))
  return named ? headers : { ...authFor(url), ...headers }
}

export interface Running {
  readonly project: Project
  readonly toolbelt: Toolbelt
  readonly server: ToolbeltServer
  readonly url: string
  close(): Promise<void>
}

/**
 * A server in this process, on a free port, over a toolbelt of a fresh project. A project given a
 * config is trusted, so that config (`mcp.ask`, `mcp.max_request_bytes`, ...) applies.
 */
export async function startServer(
  options: { config?: Config } & Partial<Omit<ServeOptions, "toolbelt">> = {},
): Promise<Running> {
  const { config, ...serve } = options
  const project = await makeProject(config)
  const toolbelt = await createToolbelt({
    directory: project.dir,
    dataDir: project.env.TOOLBELT_DATA_DIR!,
    env: project.env,
    mcp: false,
    ...(config ? { trust: true } : {}),
  })
  const server = await serveHttp({ ...(serve.socket === undefined ? { port: 0 } : {}), ...serve, toolbelt })
  rememberToken(server.url, server.token)
  return {
    project,
    toolbelt,
    server,
    url: server.url,
    async close() {
      await server.close()
      await toolbelt.close()
      await project.remove()
    },
  }
}

export interface Reply<T = any> {
  readonly status: number
  readonly body: T
  readonly headers: Headers
}

/** One request to the API with the server's token: a JSON body in (when given), the parsed body out. */
export function api<T = any>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  return anonymous(url, method, path, body, withAuth(url, headers))
}

/** One request to the API without the token (unless `headers` carry it). */
export async function anonymous<T = any>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  const response = await fetch(`${url}${path}`, {
    method,
    redirect: "manual",
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    // Not JSON: the text as it is.
  }
  return { status: response.status, body: parsed as T, headers: response.headers }
}

/** A new session of the server's project. */
export async function newSession(url: string, title = "test"): Promise<string> {
  const reply = await api(url, "POST", "/api/sessions", { title })
  if (reply.status !== 201)
    throw new Error(`creating a session: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body.id as string
}

/** Waits until `check` returns something other than undefined/false (polling), or fails after `ms`. */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  ms = 20_000,
): Promise<NonNullable<T>> {
  const start = Date.now()
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false && value !== null) return value as NonNullable<T>
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export interface StreamEvent {
  /** The SSE id (absent on the server's own `server.*` frames). */
  readonly id: string | undefined
  readonly type: string
  readonly properties: any
}

/** A client of `/events`: every event it got, in order, and comments (heartbeats) counted. */
export class EventClient {
  readonly events: StreamEvent[] = []
  comments = 0
  readonly #abort = new AbortController()
  readonly done: Promise<void>
  #wake: (() => void) | undefined

  private constructor(response: Response) {
    this.done = this.#read(response).catch(() => {})
  }

  /** Connects; `lastEventID` is sent as the Last-Event-ID header. */
  static async open(
    url: string,
    options: { lastEventID?: string; query?: string; headers?: Record<string, string> } = {},
  ): Promise<EventClient> {
    const abort = new AbortController()
    const response = await fetch(`${url}/events${options.query ?? ""}`, {
      headers: withAuth(url, {
        accept: "text/event-stream",
        ...(options.lastEventID ? { "last-event-id": options.lastEventID } : {}),
        ...options.headers,
      }),
      signal: abort.signal,
    })
    if (response.status !== 200)
      throw new Error(`/events answered ${response.status}: ${await response.text()}`)
    const client = new EventClient(response)
    client.#abort.signal.addEventListener("abort", () => abort.abort())
    await client.next((event) => event.type === "server.connected", "server.connected")
    return client
  }

  /** Bus events (with an id), in order. */
  get bus(): StreamEvent[] {
    return this.events.filter((event) => event.id !== undefined)
  }

  /** The id of the last event with one. */
  get lastID(): string | undefined {
    return this.bus.at(-1)?.id
  }

  /** Waits for an event that satisfies `predicate` (among those already received too). */
  async next(predicate: (event: StreamEvent) => boolean, what: string, ms = 20_000): Promise<StreamEvent> {
    const start = Date.now()
    for (;;) {
      const found = this.events.find(predicate)
      if (found) return found
      if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
      await new Promise<void>((resolve) => {
        this.#wake = resolve
        setTimeout(resolve, 50)
      })
    }
  }

  /** Drops the connection (the client goes away mid-stream). */
  close(): void {
    this.#abort.abort()
  }

  async #read(response: Response): Promise<void> {
    const decoder = new TextDecoder()
    let buffer = ""
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true })
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        this.#frame(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
      }
      this.#wake?.()
    }
  }

  #frame(frame: string): void {
    const parsed = parseFrame(frame)
    if (parsed === "comment") this.comments++
    else if (parsed) this.events.push(parsed)
  }
}

/** One SSE frame: its event, or a comment (a heartbeat), or nothing (a `retry:` line). */
export function parseFrame(frame: string): StreamEvent | "comment" | undefined {
  let id: string | undefined
  let data: string | undefined
  let comment = false
  for (const line of frame.split("\n")) {
    if (line.startsWith(":")) comment = true
    else if (line.startsWith("id: ")) id = line.slice(4)
    else if (line.startsWith("data: ")) data = line.slice(6)
  }
  if (data === undefined) return comment ? "comment" : undefined
  const { type, properties } = JSON.parse(data) as { type: string; properties: unknown }
  return { id, type, properties }
}

export interface ServeProcess {
  readonly url: string
  /** The page's address as printed (the login link when there is a token). */
  readonly pageURL: string
  readonly child: ChildProcess
  stderr(): string
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** Starts `toolbelt serve --port 0` in a project and waits for the addresses it prints. */
export async function startServe(project: Project, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, "serve", "--cwd", project.dir, "--port", "0", ...args], {
    cwd: project.dir,
    env: project.env,
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const page = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no page address within 30 s; stderr:\n${stderr}`)),
      30_000,
    )
    const onData = () => {
      const match = /page\s+(http:\/\/\S+)/.exec(stderr)
      if (!match || !/\n {2}MCP .*\n/.test(stderr)) return
      clearTimeout(timer)
      child.stderr!.off("data", onData)
      resolve(match[1]!)
    }
    child.stderr!.on("data", onData)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`toolbelt serve exited (${code}) before listening; stderr:\n${stderr}`))
    })
  })
  const url = new URL(page).origin
  const given = args.includes("--token") ? args[args.indexOf("--token") + 1] : undefined
  const made = /\n {2}token\s+(\S+)/.exec(stderr)?.[1]
  rememberToken(url, made ?? given ?? (project.env.TOOLBELT_SERVE_TOKEN || undefined))
  return {
    url,
    pageURL: page,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM")
      return exited
    },
  }
}

/** The numbers of the events' ids (`<epoch>.<n>`). */
export function seqs(events: readonly StreamEvent[]): number[] {
  return events.map((event) => Number(event.id!.split(".").pop()))
}
