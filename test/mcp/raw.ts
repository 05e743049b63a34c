// Speaking MCP by hand, below the SDK client: raw HTTP requests on loopback, raw stdio lines.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { authFor, bin, type Project } from "./helpers.ts"

export const JSON_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
}

export interface RawAnswer {
  readonly status: number
  readonly headers: Headers
  /** The body as text (an SSE stream read to its end). */
  readonly text: string
  /** The JSON-RPC messages of the body: the JSON body, or every `data:` line of the stream. */
  readonly messages: Record<string, unknown>[]
}

/** POSTs a body (a string as it is, anything else as JSON), with the server's made-up token, and reads the whole answer. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...authFor(url), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, messages: messagesOf(text) }
}

export function messagesOf(text: string): Record<string, unknown>[] {
  if (text.trim() === "") return []
  if (text.startsWith("{") || text.startsWith("[")) return [JSON.parse(text)].flat()
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > "data: ".length)
    .map((line) => JSON.parse(line.slice("data: ".length)))
}

export function initialize(version: string, id: number | string = 1, capabilities: object = {}) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities, clientInfo: { name: "raw", version: "1.0.0" } },
  }
}

export const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }

/** Opens an MCP session by hand; returns the headers its later requests carry (the token too, when one was made up). */
export async function openSession(url: string, version: string): Promise<Record<string, string>> {
  const answer = await post(url, initialize(version))
  const id = answer.headers.get("mcp-session-id")
  if (answer.status !== 200 || !id) throw new Error(`initialize failed: ${answer.status} ${answer.text}`)
  const headers = { "mcp-session-id": id, "mcp-protocol-version": version, ...authFor(url) }
  await post(url, initialized, headers)
  return headers
}

export function callTool(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }
}

export interface StdioLines {
  readonly child: ChildProcessWithoutNullStreams
  /** Writes one line (a string as it is, anything else as JSON). */
  send(line: unknown): void
  /** The next line the server wrote, parsed. */
  next(): Promise<unknown>
  stop(): Promise<void>
}

/** Starts `toolbelt mcp` over stdio and talks to it line by line. */
export function stdioLines(project: Project): StdioLines {
  const child = spawn(process.execPath, [bin, "mcp", "--cwd", project.dir], {
    cwd: project.dir,
    env: project.env,
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const queue: string[] = []
  const waiting: ((line: string) => void)[] = []
  createInterface({ input: child.stdout }).on("line", (line) => {
    const waiter = waiting.shift()
    if (waiter) waiter(line)
    else queue.push(line)
  })
  return {
    child,
    send: (line) => child.stdin.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`),
    next: async () => {
      const line = queue.shift() ?? (await new Promise<string>((resolve) => waiting.push(resolve)))
      return JSON.parse(line)
    },
    async stop() {
      child.stdin.end()
      await exited
    },
  }
}
